#!/usr/bin/env python3
"""Pictures of printed text for the OCR benchmark (bench_ocr) and int8 calibration.

  make_pages.py pages OUT_DIR   two pages (page1.png: six lines in five fonts and
                                sizes; page2.png: a grey, noisy page with a line
                                printed upside down) and truth.txt (one line of
                                text a line, the pages in order, each page's lines
                                in reading order, a blank line between pages)
  make_pages.py lines OUT_DIR   fifteen single-line crops of other text (for
                                `litegraph quantize --calib OUT_DIR`)

Fonts: Debian's fonts-dejavu-core and fonts-liberation2; pictures: python3-pil,
numpy (python3-numpy).  Deterministic (fixed noise seed).
"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONTS = "/usr/share/fonts/truetype"
DEJAVU = f"{FONTS}/dejavu"
LIBERATION = f"{FONTS}/liberation2"

PAGE1 = [  # (text, font file, size in pixels)
    ("Invoice 2026-0412 for Acme Robotics", f"{DEJAVU}/DejaVuSans.ttf", 30),
    ("Total due: 1284.50 EUR by 15 January", f"{LIBERATION}/LiberationSerif-Regular.ttf", 30),
    ("Ship to: 42 Harbour Street, Brest", f"{DEJAVU}/DejaVuSerif.ttf", 26),
    ("Reference code QX-7731 / batch 19", f"{DEJAVU}/DejaVuSansMono.ttf", 24),
    ("Le colis arrive mardi matin", f"{LIBERATION}/LiberationSans-Regular.ttf", 34),
    ("Thank you for your order", f"{LIBERATION}/LiberationSans-Bold.ttf", 38),
]
PAGE2 = [  # the fourth line is printed upside down
    ("Meeting notes from the spring review", f"{LIBERATION}/LiberationSans-Regular.ttf", 32),
    ("Budget approved for 3 new sensors", f"{DEJAVU}/DejaVuSans-Bold.ttf", 28),
    ("Next deadline: Friday 27 March", f"{LIBERATION}/LiberationSerif-Bold.ttf", 32),
    ("Please return this form signed", f"{DEJAVU}/DejaVuSerif.ttf", 30),
    ("Room 204 is booked until noon", f"{DEJAVU}/DejaVuSansCondensed.ttf", 24),
    ("Contact the support team at extension 5521", f"{LIBERATION}/LiberationMono-Regular.ttf", 24),
]
LINES = [
    ("Quarterly report for the northern region", f"{DEJAVU}/DejaVuSans.ttf", 30),
    ("Order number 88123 shipped on 4 May", f"{LIBERATION}/LiberationSerif-Regular.ttf", 32),
    ("Warehouse B, shelf 17, row 3", f"{DEJAVU}/DejaVuSansMono.ttf", 26),
    ("La facture est payable sous 30 jours", f"{LIBERATION}/LiberationSans-Regular.ttf", 30),
    ("Temperature 21.5 C, humidity 40%", f"{DEJAVU}/DejaVuSerif.ttf", 28),
    ("Please keep this receipt", f"{LIBERATION}/LiberationSans-Bold.ttf", 34),
    ("Serial AB-99-0071 (tested)", f"{DEJAVU}/DejaVuSans-Bold.ttf", 28),
    ("Open Monday to Saturday, 9 to 18", f"{LIBERATION}/LiberationSerif-Bold.ttf", 30),
    ("Battery level low: charge soon", f"{DEJAVU}/DejaVuSansCondensed.ttf", 28),
    ("Version 3.2.1 released today", f"{LIBERATION}/LiberationMono-Regular.ttf", 26),
    ("Merci pour votre visite", f"{DEJAVU}/DejaVuSerif-Bold.ttf", 32),
    ("Gate 12 closes at 7:45", f"{LIBERATION}/LiberationSans-Italic.ttf", 30),
    ("Total weight 3.8 kg", f"{DEJAVU}/DejaVuSans-Oblique.ttf", 30),
    ("Call 555 0199 for help", f"{LIBERATION}/LiberationSerif-Italic.ttf", 32),
    ("Tax + shipping 12.40 EUR", f"{DEJAVU}/DejaVuSans.ttf", 28),
]


def text_image(text, font_file, size, ink=(20, 20, 30)):
    font = ImageFont.truetype(font_file, size)
    x0, y0, x1, y1 = font.getbbox(text)
    pad = size // 3
    img = Image.new("RGB", (x1 - x0 + 2 * pad, y1 - y0 + 2 * pad), (255, 255, 255))
    ImageDraw.Draw(img).text((pad - x0, pad - y0), text, font=font, fill=ink)
    return img


def page(lines, width, height, background, upside_down=(), noise=0.0, seed=0):
    img = Image.new("RGB", (width, height), background)
    y = 40
    for i, (text, font_file, size) in enumerate(lines):
        line = text_image(text, font_file, size)
        if i in upside_down:
            line = line.rotate(180)
        # White crops pasted with "darken": the ink on the page's background.
        region = img.crop((60, y, 60 + line.width, y + line.height))
        img.paste(Image.fromarray(np.minimum(np.asarray(region), np.asarray(line))), (60, y))
        y += line.height + size
    if noise > 0:
        rng = np.random.default_rng(seed)
        a = np.asarray(img).astype(np.float32) + rng.normal(0, noise, (height, width, 3))
        img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    return img


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("pages", "lines"):
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    if sys.argv[1] == "pages":
        page(PAGE1, 900, 620, (255, 255, 255), noise=4, seed=1).save(out / "page1.png")
        page(PAGE2, 1000, 640, (226, 224, 218), upside_down=(3,), noise=14,
             seed=2).save(out / "page2.png")
        truth = [t for t, _, _ in PAGE1] + [""] + [t for t, _, _ in PAGE2]
        (out / "truth.txt").write_text("\n".join(truth) + "\n", encoding="utf-8")
    else:
        for i, (text, font_file, size) in enumerate(LINES):
            text_image(text, font_file, size).save(out / f"line{i:02d}.png")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
