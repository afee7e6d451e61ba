from django.db import migrations, models


class Migration(migrations.Migration):
    """Record each collection's embedding model: collections made before this hold the fp32-compute model's vectors."""

    dependencies = [
        ("evidence", "0009_source_file"),
    ]

    operations = [
        # Existing rows get the model their vectors were made with; `manage.py reembed` moves them on.
        migrations.AddField(
            model_name="collection",
            name="embedding_model",
            field=models.CharField(default="minilm-l6-v2-int8w", max_length=40),
        ),
        migrations.AlterField(
            model_name="collection",
            name="embedding_model",
            field=models.CharField(default="minilm-l6-v2-dq8pc", max_length=40),
        ),
    ]
