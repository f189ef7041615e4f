rule prepare_model:
    """A transformers checkpoint (config.json + safetensors): seeded random init, or a local directory."""
    input:
        sources.files_of("models.checkpoint", "runtime"),
    output:
        directory("results/models/{model}"),
    params:
        spec=lambda w: plan.model_spec(config, w.model),
    log:
        "results/logs/prepare_model/{model}.log",
    benchmark:
        "results/benchmarks/prepare_model/{model}.tsv"
    conda:
        ENV
    script:
        "../../scripts/prepare_model.py"
