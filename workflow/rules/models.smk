rule prepare_model:
    """A transformers checkpoint (config.json + safetensors): seeded random init, or a local directory."""
    input:
        code("prepare_model", "models.checkpoint"),
    output:
        directory("results/models/{model}"),
    log:
        "results/logs/prepare_model/{model}.log",
    benchmark:
        "results/benchmarks/prepare_model/{model}.tsv"
    priority: 2  # every model first, two at a time on two cores, before the timing jobs take the machine
    conda:
        ENV
    params:
        spec=model_spec_of,
    script:
        "../../scripts/prepare_model.py"


rule prepare_data:
    """The text corpus (installed packages' documentation), a byte-level BPE tokenizer and its tokens."""
    input:
        code("prepare_data", "data"),
    output:
        directory(plan.CORPUS),
    log:
        "results/logs/prepare_data/corpus.log",
    benchmark:
        "results/benchmarks/prepare_data/corpus.tsv"
    priority: 2  # as prepare_model
    conda:
        ENV
    params:
        data=config["data"],
    script:
        "../../scripts/prepare_data.py"
