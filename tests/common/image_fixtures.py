# image_fixtures.py - writes tests/common/image_fixtures.h, the pictures
# test_image.c (and step 58's test_vgg.c) reads and what Pillow makes of
# them. Run by hand with Debian's Python (python3-pil, python3-numpy);
# the suite never runs it:
#   /usr/bin/python3 tests/common/image_fixtures.py > tests/common/image_fixtures.h
import io, sys, numpy as np, PIL
from PIL import Image
rng = np.random.default_rng(58)
def smooth(h, w):
    y, x = np.mgrid[0:h, 0:w]
    a = np.stack([128 + 100 * np.sin(x / 2.0 + y / 3.0), 60 + 30 * x, 250 - 20 * y], -1)
    return np.clip(a + rng.normal(0, 15, a.shape), 0, 255).astype(np.uint8)
def encode(im, fmt, **kw):
    b = io.BytesIO(); im.save(b, fmt, **kw); return b.getvalue()
out = []
def arr(name, ctype, values, per):
    vals = list(values)
    out.append(f'static const {ctype} {name}[{len(vals)}] = {{')
    for i in range(0, len(vals), per):
        out.append('    ' + ', '.join(vals[i:i + per]) + ',')
    out.append('};')
def bytes_(name, data):
    arr(name, 'unsigned char', (f'0x{b:02x}' for b in data), 12)
def u8(name, a):
    arr(name, 'unsigned char', (str(int(v)) for v in np.asarray(a).ravel()), 14)
def f32(name, a):
    arr(name, 'float', (repr(float(v)) + 'f' for v in np.asarray(a).ravel()), 3)
def preprocess(image, size):   # DeZero's VGG16.preprocess
    image = image.convert('RGB')
    if size:
        image = image.resize(size)
    image = np.asarray(image, dtype=np.float32)
    image = image[:, :, ::-1]
    image -= np.array([103.939, 116.779, 123.68], dtype=np.float32)
    return image.transpose((2, 0, 1))

png_pixels = smooth(4, 5)                           # (4, 5, 3)
png = encode(Image.fromarray(png_pixels), 'PNG')
jpg = encode(Image.fromarray(smooth(5, 6)), 'JPEG', quality=85)
grey = encode(Image.fromarray(smooth(3, 2)[:, :, 0], 'L'), 'PNG')
pal = encode(Image.fromarray(smooth(2, 3)).convert('P', palette=Image.ADAPTIVE, colors=4), 'PNG')
rgba = encode(Image.fromarray(np.dstack([smooth(2, 2), [[0, 255], [7, 128]]]).astype(np.uint8), 'RGBA'), 'PNG')
grey16 = encode(Image.fromarray(np.array([[1000, 200, 65535]], np.uint16)), 'PNG')
open_ = lambda b: Image.open(io.BytesIO(b))
out.append('/* image_fixtures.h - tiny pictures and what Pillow %s (Debian\'s' % PIL.__version__)
out.append(' * python3-pil, with NumPy %s) makes of them: written by' % np.__version__)
out.append(' * tests/common/image_fixtures.py; the suite never runs Python. */')
out.append('')
bytes_('fixture_png', png)                          # 5 x 4 RGB
u8('fixture_png_rgb', np.asarray(open_(png).convert('RGB')))             # (4, 5, 3)
u8('fixture_png_up', np.asarray(open_(png).convert('RGB').resize((9, 7))))   # (7, 9, 3)
u8('fixture_png_wider', np.asarray(open_(png).convert('RGB').resize((8, 4))))  # (4, 8, 3)
bytes_('fixture_jpg', jpg)                          # 6 x 5 YCbCr 4:2:0
u8('fixture_jpg_rgb', np.asarray(open_(jpg).convert('RGB')))             # (5, 6, 3)
u8('fixture_jpg_down', np.asarray(open_(jpg).convert('RGB').resize((4, 2))))  # (2, 4, 3)
u8('fixture_jpg_shorter', np.asarray(open_(jpg).convert('RGB').resize((6, 3))))  # (3, 6, 3)
f32('fixture_jpg_vgg', preprocess(open_(jpg), (3, 4)))   # (3, 4, 3)
f32('fixture_png_vgg_unresized', preprocess(open_(png), None))  # (3, 4, 5)
bytes_('fixture_grey_png', grey)                    # 2 x 3 L
u8('fixture_grey_rgb', np.asarray(open_(grey).convert('RGB')))           # (3, 2, 3)
bytes_('fixture_palette_png', pal)                  # 3 x 2 P
u8('fixture_palette_rgb', np.asarray(open_(pal).convert('RGB')))         # (2, 3, 3)
bytes_('fixture_rgba_png', rgba)                    # 2 x 2 RGBA
u8('fixture_rgba_rgb', np.asarray(open_(rgba).convert('RGB')))           # (2, 2, 3)
bytes_('fixture_grey16_png', grey16)               # 3 x 1, 16-bit grey
u8('fixture_grey16_rgb', np.asarray(open_(grey16).convert('RGB')))       # (1, 3, 3)
progressive = encode(Image.fromarray(smooth(9, 11)), 'JPEG', quality=85, progressive=True)
bytes_('fixture_progressive_jpg', progressive)      # 11 x 9, progressive
u8('fixture_progressive_rgb', np.asarray(open_(progressive).convert('RGB')))  # (9, 11, 3)
print('\n'.join(out))
