"""pescope.figure: PNG decoded back, SVG parsed, files written, and the command line's figure."""
import io
import struct
import threading
import xml.etree.ElementTree as ElementTree
import zlib

import numpy as np
import pytest

import pescope

matplotlib_image = pytest.importorskip("matplotlib.image")


def png_chunks(data):
    # The PNG format, read here: the signature, then length, type, data and CRC per chunk.
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, chunks = 8, []
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind = data[offset + 4:offset + 8]
        body = data[offset + 8:offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])
        assert crc == zlib.crc32(kind + body)
        chunks.append((kind, body))
        offset += 12 + length
    return chunks


def test_png_decodes_to_the_figure():
    figure = pescope.figure("waves+heatmap", preset="geron-16-9", width=640, height=480)
    png = figure._repr_png_()
    chunks = png_chunks(png)
    width, height, depth, colour = struct.unpack(">IIBB", chunks[0][1][:10])
    assert (chunks[0][0], width, height, depth) == (b"IHDR", 640, 480, 8)
    channels = {2: 3, 6: 4}[colour]
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    assert len(raw) == height * (1 + width * channels)  # a filter byte per row
    pixels = matplotlib_image.imread(io.BytesIO(png))
    assert pixels.shape[:2] == (480, 640)
    red, green, blue = (pixels[..., c] for c in range(3))
    # Fig 16-9: the i = 100 curve in blue and i = 101 in red, a grey heatmap below.
    assert ((blue > 0.7) & (red < 0.3) & (green < 0.3)).sum() > 200
    assert ((red > 0.7) & (blue < 0.3) & (green < 0.3)).sum() > 200
    grey = (abs(red - green) < 0.02) & (abs(green - blue) < 0.02)
    assert (grey & (red > 0.05) & (red < 0.95)).sum() > 10000


def test_svg_parses_with_the_figures_text():
    figure = pescope.figure("waves", preset="geron-16-9", width=400, height=300, dpi=96)
    root = ElementTree.fromstring(figure._repr_svg_())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox") == "0 0 400 300"
    assert root.get("width") == "105.833mm"  # 400 px at 96 dpi
    texts = {t.text.strip() for t in root.iter("{http://www.w3.org/2000/svg}text") if t.text}
    assert {"position p", "0", "200"} <= texts


def test_save_writes_each_format(tmp_path):
    figure = pescope.figure(width=320, height=240)
    assert (figure.width, figure.height, figure.view) == (320, 240, "heatmap")
    for name, magic in (("f.png", b"\x89PNG"), ("f.svg", b"<?xml"), ("f.pdf", b"%PDF")):
        figure.save(tmp_path / name)
        assert (tmp_path / name).read_bytes().startswith(magic)
    with pytest.raises(ValueError, match="must end in .png, .svg or .pdf"):
        figure.save(tmp_path / "f.gif")
    with pytest.raises(OSError, match="does not exist"):
        figure.save(tmp_path / "missing" / "f.png")
    assert not (tmp_path / "missing").exists()


def test_same_pixels_as_the_command_line(run_pescope, tmp_path):
    options = dict(scheme="rope", positions=100, dims=64, colormap="magma", width=500,
                   height=400)
    pescope.figure("heatmap", **options).save(tmp_path / "module.png")
    args = [f"--{key}={value}" for key, value in options.items()]
    result = run_pescope("export", "--view=heatmap", *args, "--out", tmp_path / "cli.png")
    assert result.returncode == 0, result.stderr
    assert np.array_equal(matplotlib_image.imread(tmp_path / "module.png"),
                          matplotlib_image.imread(tmp_path / "cli.png"))


def test_phrases_take_a_list_of_texts():
    figure = pescope.figure("phrases", text=["I am a robot", "oh me too"], max_tokens=50,
                            sequence_length=10, width=600, height=400)
    assert figure.view == "phrases"
    assert matplotlib_image.imread(io.BytesIO(figure._repr_png_())).shape[:2] == (400, 600)


@pytest.mark.parametrize("keywords, error, message", [
    (dict(view="nope"), ValueError, '--view: unknown view "nope"'),
    (dict(width=5), ValueError, "--width must be between 16 and 30000 (got 5)"),
    (dict(preset="nope"), ValueError, "--preset: "),
    (dict(positions=1 << 20, dims=4096), ValueError, "--positions / --dims: "),
    (dict(out="x.png"), TypeError, "unexpected keyword argument 'out'"),
    (dict(transpose="yes"), TypeError, "--transpose is a switch"),
])
def test_bad_arguments(keywords, error, message):
    with pytest.raises(error) as raised:
        pescope.figure(**keywords)
    assert message in str(raised.value)


def test_layer_attention_draws_its_ablation(data):
    """scale=, theta=, shift=, no_positions= draw the enlarged head's three panels, as the
    command line does; without a layer and head they are refused by name."""
    model = str(data / "models-layers" / "llama-tiny4")
    common = dict(model=model, text="The cat sat on the mat.", width=900, height=300)
    plain = pescope.figure("layer-attention", attention_layer="2", attention_head="1", **common)
    plain_png = plain._repr_png_()
    for ablation in [dict(scale=4), dict(theta=10.0), dict(shift=8), dict(no_positions=True)]:
        ablated = pescope.figure("layer-attention", attention_layer="2", attention_head="1",
                                 **ablation, **common)
        svg = ablated._repr_svg_()
        assert "ablated in every layer" in svg, ablation
        assert ablated._repr_png_() != plain_png, ablation
    with pytest.raises(ValueError, match="--attention-layer N"):
        pescope.figure("layer-attention", scale=4, **common)
    with pytest.raises(ValueError, match="apply to --view layer-attention"):
        pescope.figure("sinks", scale=4, **common)


def test_layer_views_refuse_what_they_cannot_draw(data):
    """The frequency atlas of a model without RoPE and the probe of too few tokens raise the
    command line's sentence, not an empty figure."""
    gpt2 = str(data / "models-layers" / "gpt2-tiny4")
    with pytest.raises(ValueError, match="no rotary positions: the frequency atlas is of RoPE"):
        pescope.figure("frequency-atlas", model=gpt2, text="The cat")
    with pytest.raises(ValueError, match="--view position-probe: "):
        pescope.figure("position-probe", model=gpt2, text="Hi")


def test_figures_from_another_thread_are_refused():
    pescope.figure(width=320, height=240)  # Qt runs on this (the main) thread
    caught = []

    def draw():
        try:
            pescope.figure(width=320, height=240)
        except RuntimeError as error:
            caught.append(str(error))

    worker = threading.Thread(target=draw)
    worker.start()
    worker.join()
    assert caught and "thread" in caught[0]
