"""The extraction study: ragged and fixed-shape batching, every variant storing what the model computes for
the real tokens, signatures that tell the variants apart, and the negative control."""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace

import jax.numpy as jnp
import numpy as np
import pytest

from jaxpitfalls.harness.variants import VariantsIndistinguishable
from jaxpitfalls.models import checkpoint
from jaxpitfalls.studies.extraction import extractors, scratch
from jaxpitfalls.studies.extraction import measure as extraction
from jaxpitfalls.studies.extraction.spec import Timing

CONF = {"id": "e", "layers": 2, "hidden": 32, "batch": 2, "sequences": 3, "min_len": 3, "max_len": 8}
SETTINGS = {"rounds": 2, "budget_s": 0.1, "on_contention": "warn"}  # timed, never judged


@pytest.fixture(scope="module")
def inputs(tiny_qwen2_dir, tiny_corpus_dir):
    return {"model": str(tiny_qwen2_dir), "data": str(tiny_corpus_dir)}


@pytest.mark.slow
def test_the_dataset_must_end_in_a_ragged_batch(inputs):
    with pytest.raises(ValueError, match="not be ragged"):
        extraction.dataset(inputs["data"], CONF | {"sequences": 4})


@pytest.mark.slow
def test_batches_have_one_length_and_a_ragged_last_batch_unless_padded(inputs):
    sequences = extraction.dataset(inputs["data"], CONF)
    ragged = extraction.dataset_batches(sequences, CONF, padded=False)
    fixed = extraction.dataset_batches(sequences, CONF, padded=True)
    assert [b[0].shape for b in ragged] == [(2, CONF["max_len"]), (1, CONF["max_len"])]  # the write-up's loop
    assert {b[0].shape for b in fixed} == {(2, CONF["max_len"])} and fixed[-1][1][1].sum() == 0  # empty row masked
    for (_, mask, lengths), seqs in zip(ragged, (sequences[:2], sequences[2:]), strict=True):
        assert lengths == [len(s) for s in seqs] and mask.sum() == sum(lengths)


@pytest.mark.slow
def test_every_variant_stores_what_the_model_computes_for_the_real_tokens(inputs, tmp_path):
    model, config = checkpoint.load_model(inputs["model"])
    sequences = extraction.dataset(inputs["data"], CONF)
    layers = tuple(range(config.num_hidden_layers + 1))
    _, hidden = model(jnp.asarray(sequences[0]))
    counts = {}
    for name, cls in extractors.EXTRACTORS.items():
        out = tmp_path / name
        out.mkdir()
        extractor = cls(model, layers)
        extractor.run(extraction.dataset_batches(sequences, CONF, cls.padded), out)
        first_batch = np.load(out / "layer2_batch0000.npy")
        assert first_batch.shape == (len(sequences[0]) + len(sequences[1]), 32)
        np.testing.assert_allclose(first_batch[:len(sequences[0])], hidden[2], rtol=1e-4, atol=1e-5, err_msg=name)
        assert len(list(out.glob("*.npy"))) == len(layers) * 2  # a file per layer and batch
        counts[name] = extractor.counts
    assert counts["jit_padded_stacked"] == {"forward_calls": 2, "host_copies": 2, "async_copies": 0, "max_in_flight": 1}
    assert counts["pipelined"] == {"forward_calls": 2, "host_copies": 2, "async_copies": 2, "max_in_flight": 2}
    assert counts["scanned"] == {"forward_calls": 1, "host_copies": 1, "async_copies": 1, "max_in_flight": 1}  # a chunk


@pytest.mark.slow
def test_scanned_chunks_are_equal_and_fill_the_last_with_empty_batches(inputs, tmp_path, monkeypatch):
    """Five batches at most two per chunk: three chunks of two, the last one's second batch empty (masked, not
    stored); what is stored is what pipelined stores, batch by batch."""
    monkeypatch.setattr(extractors, "MAX_SCAN_CHUNK", 2)
    model, config = checkpoint.load_model(inputs["model"])
    conf = CONF | {"sequences": 9}
    data = extraction.dataset_batches(extraction.dataset(inputs["data"], conf), conf, padded=True)
    chunks = extractors.scan_chunks(data)
    assert [c[0].shape[0] for c in chunks] == [2, 2, 2] and [len(c[2]) for c in chunks] == [2, 2, 1]
    assert chunks[-1][1][1].sum() == 0
    assert [len(c) for c in (extractors.scan_chunks(data * 4), extractors.scan_chunks(data[:4]))] == [10, 2]
    layers = tuple(range(config.num_hidden_layers + 1))
    stored = {}
    for cls in (extractors.Pipelined, extractors.Scanned):
        out = tmp_path / cls.name
        out.mkdir()
        extractor = cls(model, layers)
        extractor.run(data, out)
        stored[cls.name] = extraction.stored(out)
        assert len(list(out.glob("*.npy"))) == len(layers) * len(data)
    assert extractor.counts == {"forward_calls": 3, "host_copies": 3, "async_copies": 3, "max_in_flight": 2}
    np.testing.assert_allclose(stored["scanned"], stored["pipelined"], rtol=1e-4, atol=1e-5)


@pytest.mark.slow
def test_variants_that_run_the_same_code_are_refused(inputs, monkeypatch):
    monkeypatch.setattr(extraction, "EXTRACTORS", {"jit_padded_async": extractors.JitPaddedAsync,
                                                   "pipelined": extractors.JitPaddedAsync})
    with pytest.raises(VariantsIndistinguishable, match="'jit_padded_async' and 'pipelined'"):
        extraction.run(CONF, inputs, Timing.of(SETTINGS))


@pytest.mark.slow
def test_first_passes_open_with_an_untimed_round_then_time_their_own_rounds(inputs, tmp_path):
    """Every variant's first fresh pass of the mode is run and dropped (the process's first one ran seconds
    long in three references), then `first_pass_rounds` rounds are timed, each sample a fresh jax.jit that
    compiles: the ragged last batch's program too without padding."""
    model, config = checkpoint.load_model(inputs["model"])
    sequences = extraction.dataset(inputs["data"], CONF)
    data = {padded: extraction.dataset_batches(sequences, CONF, padded) for padded in (False, True)}
    sampling = Timing.of(SETTINGS | {"first_pass_rounds": 3}).first_pass_sampling
    assert sampling.rounds == 3 and Timing.of(SETTINGS).first_pass_sampling.rounds == SETTINGS["rounds"]
    timed = extraction.first_passes(model, tuple(range(config.num_hidden_layers + 1)), data, tmp_path,
                                    replace(sampling, budget_s=None), "e")
    assert {name: len(entry["samples_s"]) for name, entry in timed.entries.items()} == {"jit": 3, "jit_padded": 3}
    assert timed.entries["jit"]["compiles_in_timed_region"] == 2 * 3  # the full batches' shape and the ragged one's
    assert timed.entries["jit_padded"]["compiles_in_timed_region"] == 3
    assert sorted(p.name for p in (tmp_path / "first_pass" / "jit").iterdir()) == ["pass3"]  # 1 untimed + 3 timed


def test_passes_store_in_memory_where_it_has_room_and_keep_only_the_latest(tmp_path, monkeypatch):
    """A disk's writeback set fresh processes' storing passes 2-3x apart: the OS's memory filesystem where it holds
    ROOM times what the passes keep, else the temp dir; a killed worker's directory is removed there by the next;
    a sampler removes its previous pass before the next."""
    memory, temp = tmp_path / "memory", tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(scratch, "MEMORY", memory)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    assert scratch.make_scratch("extraction-", 1)[1] == "temp dir"  # no such filesystem
    memory.mkdir()
    orphan = memory / "extraction-999999999-abc"  # no such process
    orphan.mkdir()
    where, said = scratch.make_scratch("extraction-", 1)
    assert said == "memory" and where.parent == memory and not orphan.exists()
    assert where.name.startswith(f"extraction-{os.getpid()}-")
    monkeypatch.setattr(scratch, "_available", lambda: scratch.ROOM - 1)  # the OS short of memory
    assert scratch.make_scratch("extraction-", 1)[1] == "temp dir"

    class Storing:
        def run(self, data, out):
            (out / "rows.npy").write_bytes(b"x")

    sampler = extraction._Pass("v", Storing(), [], memory)
    for _ in range(3):
        sampler()
    assert [p.name for p in (memory / "v").iterdir()] == ["pass2"]
