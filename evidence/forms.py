"""Forms of the browser app: asking a question and creating a collection."""

from __future__ import annotations

from django import forms

from .agent.research import SYSTEM_NAMES
from .models import Collection, Run
from .retrieval.searchers import SEARCHERS
from .run_config import user_config
from .services import runs

SYSTEM_LABELS = {
    "dual": "Dual (planner + System 1 judge)",
    "pi_serini": "Pi-Serini (three search tools)",
    "review_loop": "Review loop (answer, review, refine)",
    "single_pass": "Single pass (one search)",
}


class AskForm(forms.Form):
    collection = forms.ModelChoiceField(queryset=Collection.objects.none(), empty_label=None)
    question = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "Ask about your documents"}), max_length=2000
    )
    system = forms.ChoiceField(choices=[(name, SYSTEM_LABELS.get(name, name)) for name in SYSTEM_NAMES], initial="dual")
    searcher = forms.ChoiceField(choices=[(name, name) for name in SEARCHERS], initial="hybrid")
    task = forms.ChoiceField(choices=Run.Task.choices, initial=Run.Task.QA)
    documents = forms.CharField(
        required=False,
        max_length=5000,
        label="Only in documents",
        help_text="Optional: search by title and pick the papers a question is about.",
        # The document picker fills this with the chosen document ids, comma-separated.
        widget=forms.HiddenInput,
    )

    def __init__(self, *args, owner, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Only the owner's collections are choices, so a forged id is a form error, never another's data.
        self.fields["collection"].queryset = Collection.objects.filter(owner=owner).order_by("name")

    def clean(self) -> dict:
        # The runs service's checks, so the page refuses what the API refuses, in the same words.
        data = super().clean()
        collection, question = data.get("collection"), data.get("question")
        if collection is not None and question is not None:
            try:
                data["scope"] = runs.check_request(collection, question, data.get("documents", "").split(","))
            except runs.RunRefused as error:
                self.add_error(error.field, str(error))
        return data

    def start_run(self, owner) -> Run:
        """Start the run the form describes (the runs service: quota, queue); raises what start_run raises."""
        data = self.cleaned_data
        run, _ = runs.start_run(
            owner,
            data["collection"],
            data["question"],
            system=data["system"],
            task=data["task"],
            config=user_config(data["searcher"], data.get("scope")),
        )
        return run


class CollectionForm(forms.ModelForm):
    class Meta:
        model = Collection
        fields = ["name", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args, owner, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.owner = owner

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if Collection.objects.filter(owner=self.owner, name=name).exists():
            raise forms.ValidationError("You already have a collection with this name.")
        return name

    def save(self, commit: bool = True) -> Collection:
        self.instance.owner = self.owner
        return super().save(commit)
