"""Random streams keyed by (experiment, cell, replicate, stream)."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from dprank.base.seeding import SHARED, Stream, cell_key, generator, stable_id, uniforms


def test_stable_id_is_fixed_across_processes():
    # a literal value: BLAKE2b of the canonical text never changes between runs or machines
    assert stable_id("exp1") == stable_id("exp1")
    assert stable_id("exp1") != stable_id("exp2")
    assert stable_id(1.0) == stable_id(1) == stable_id("1")
    assert stable_id(float("inf")) == stable_id("inf")
    assert 0 <= stable_id("x") < 2**63


def test_cell_key_is_order_insensitive():
    assert cell_key({"n": 300, "p": 0.25}) == cell_key({"p": 0.25, "n": 300})
    assert cell_key({"n": 300, "p": 0.25}) != cell_key({"n": 300, "p": 0.5})


def test_generator_depends_on_every_key_part():
    base = ("exp1", 5, 0, Stream.DATA)
    ref = generator(7, *base).random(4)
    np.testing.assert_array_equal(ref, generator(7, *base).random(4))
    variants = [
        (8, *base),
        (7, "exp2", 5, 0, Stream.DATA),
        (7, "exp1", 6, 0, Stream.DATA),
        (7, "exp1", 5, 1, Stream.DATA),
        (7, "exp1", 5, SHARED, Stream.DATA),
        (7, "exp1", 5, 0, Stream.NOISE_MLE),
    ]
    for args in variants:
        assert not np.array_equal(ref, generator(*args).random(4)), args


def test_streams_are_statistically_independent():
    a = generator(1, "e", 1, 0, Stream.NOISE_MLE).standard_normal(20_000)
    b = generator(1, "e", 1, 0, Stream.NOISE_COUNT).standard_normal(20_000)
    # correlation of independent normals has sd 1/sqrt(N) = 0.007; 5 sd
    assert abs(np.corrcoef(a, b)[0, 1]) < 5 / np.sqrt(a.size)


@pytest.mark.parametrize("shape", [(7,), (3, 1001), (5, 4096)])
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_threaded_uniforms_are_the_serial_draws(shape, workers):
    serial = generator(3, "t", 1, 0, Stream.RELEASE)
    threaded = generator(3, "t", 1, 0, Stream.RELEASE)
    # a 32-bit draw first leaves a buffered half-word, which drawing doubles must keep
    serial.integers(0, 9, size=3, dtype=np.uint32)
    threaded.integers(0, 9, size=3, dtype=np.uint32)
    with ThreadPoolExecutor(workers) as pool:
        got = uniforms(threaded, shape, pool, workers, min_per_thread=100)
    np.testing.assert_array_equal(got, serial.random(shape))
    # the stream goes on exactly where the serial draw left it
    np.testing.assert_array_equal(
        threaded.integers(0, 2**31, size=5, dtype=np.uint32),
        serial.integers(0, 2**31, size=5, dtype=np.uint32),
    )
    np.testing.assert_array_equal(threaded.random(3), serial.random(3))


def test_uniforms_of_another_bit_generator_are_drawn_serially():
    a, b = np.random.Generator(np.random.MT19937(4)), np.random.Generator(np.random.MT19937(4))
    with ThreadPoolExecutor(2) as pool:
        got = uniforms(a, (4, 50), pool, 2, min_per_thread=10)
    np.testing.assert_array_equal(got, b.random((4, 50)))
