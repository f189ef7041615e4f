"""Rule prepare_data: the corpus, its tokenizer and token sequences in results/data/corpus."""

from jaxpitfalls import data, runtime

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
manifest = data.prepare(sm.params.data["packages"], sm.params.data["vocab_size"], sm.output[0])
log.info("%d documents, %d tokens, vocabulary %d -> %s", len(manifest["documents"]),
         sum(d["tokens"] for d in manifest["documents"].values()), manifest["vocab_size"], sm.output[0])
