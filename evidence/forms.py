"""Forms of the browser app: asking a question, creating a collection, evaluating a question set."""

from __future__ import annotations

from django import forms

from .agent import SYSTEM_NAMES
from .eval import MAX_BYTES, MAX_QUESTIONS, QuestionSetError, read_question_set
from .models import Collection, Evaluation, Run
from .retrieval import SEARCHERS
from .run_state import user_config
from .services import evaluations, runs

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


class EvaluationForm(forms.Form):
    """A question set to evaluate over one of the owner's collections with a system (services.evaluations)."""

    questions = forms.FileField(
        label="Question set",
        help_text=f"JSON or CSV, up to {MAX_BYTES // 1024} KB and {MAX_QUESTIONS} questions.",
        widget=forms.ClearableFileInput(attrs={"accept": ".json,.csv,application/json,text/csv"}),
    )
    collection = forms.ModelChoiceField(queryset=Collection.objects.none(), empty_label=None)
    system = forms.ChoiceField(choices=[(name, SYSTEM_LABELS.get(name, name)) for name in SYSTEM_NAMES], initial="dual")

    def __init__(self, *args, owner, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.owner = owner
        self.items: list[dict] = []
        self.fields["collection"].queryset = Collection.objects.filter(owner=owner).order_by("name")

    def clean_questions(self):
        upload = self.cleaned_data["questions"]
        if upload.size > MAX_BYTES:
            raise forms.ValidationError(
                f"The file is {upload.size // 1024} KB, over the limit of {MAX_BYTES // 1024} KB: "
                "split it into smaller sets."
            )
        try:
            self.items = read_question_set(upload.name, upload.read())
        except QuestionSetError as error:
            raise forms.ValidationError(error.problems) from error
        return upload

    def clean(self) -> dict:
        # The service's own checks, so the page says why before anything is queued.
        data = super().clean()
        if data.get("collection") is not None and self.items:
            try:
                evaluations.check_start(self.owner, data["collection"], self.items)
            except evaluations.EvaluationRefused as error:
                self.add_error(None, str(error))
        return data

    def start(self) -> Evaluation:
        """Start the evaluation the form describes; raises EvaluationRefused as start_evaluation does."""
        data = self.cleaned_data
        return evaluations.start_evaluation(
            self.owner, data["collection"], data["system"], self.items, label=data["questions"].name
        )
