// litegraph::ocr::pipeline's line finding (examples/text_lines): the whole method on pictures whose
// lines of text are measured from the pixels themselves (ink bands), upright, turned by 180
// degrees, and composed at other sizes on a canvas whose sides are no multiple of 32.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "litegraph/ocr.hpp"
#include "support.hpp"

#include "stb_image_impl.hpp"

using litegraph::vision::image;
using litegraph::vision::point;

namespace {

/// An axis-aligned box [x0, x1] x [y0, y1] (pixel coordinates, inclusive).
struct bbox {
    int x0, y0, x1, y1;
};

bool ink(const image& img, int x, int y) {
    return (img.at(x, y, 0) + img.at(x, y, 1) + img.at(x, y, 2)) / 3 < 160;
}

/// The lines of ink of a picture of horizontal text on a light background:
/// runs of rows with ink (gaps of `gap` blank rows split them), each with the
/// columns its ink spans.
std::vector<bbox> ink_bands(const image& img, int gap = 6) {
    std::vector<bbox> bands;
    int blank = gap;
    for (int y = 0; y < img.height; ++y) {
        int x0 = img.width, x1 = -1;
        for (int x = 0; x < img.width; ++x)
            if (ink(img, x, y)) x0 = std::min(x0, x), x1 = std::max(x1, x);
        if (x1 < 0) {
            ++blank;
            continue;
        }
        if (blank >= gap || bands.empty())
            bands.push_back({x0, y, x1, y});
        else {
            auto& b = bands.back();
            b.x0 = std::min(b.x0, x0), b.x1 = std::max(b.x1, x1), b.y1 = y;
        }
        blank = 0;
    }
    return bands;
}

bbox extent(const litegraph::vision::quad& q) {
    double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
    for (auto& p : q)
        x0 = std::min(x0, p[0]), x1 = std::max(x1, p[0]), y0 = std::min(y0, p[1]),
        y1 = std::max(y1, p[1]);
    return {int(std::floor(x0)), int(std::floor(y0)), int(std::ceil(x1)), int(std::ceil(y1))};
}

/// A found box covers a line of ink: every inked pixel inside (up to 8% of the
/// line's height, at least 2 pixels, may fall outside: DB boxes hug the glyphs
/// and a scaled picture's anti-aliased edges count as ink here), and no more
/// than `margin` of the line's height around it.
void check_covers(const litegraph::ocr::line& l, const bbox& band, double margin = 0.8) {
    auto e = extent(l.box);
    int h = band.y1 - band.y0 + 1;
    int slack = std::max(2, int(0.08 * h));
    INFO("box [" << e.x0 << "," << e.y0 << " - " << e.x1 << "," << e.y1 << "] ink [" << band.x0
                 << "," << band.y0 << " - " << band.x1 << "," << band.y1 << "]");
    CHECK(e.x0 <= band.x0 + slack);
    CHECK(e.y0 <= band.y0 + slack);
    CHECK(e.x1 >= band.x1 - slack);
    CHECK(e.y1 >= band.y1 - slack);
    CHECK(band.x0 - e.x0 <= margin * h);
    CHECK(band.y0 - e.y0 <= margin * h);
    CHECK(e.x1 - band.x1 <= margin * h);
    CHECK(e.y1 - band.y1 <= margin * h);
}

/// `src`'s region r, scaled by s (turned by 180 degrees when `turn`), pasted
/// onto `dst` at (x, y).
void paste(image& dst, const image& src, bbox r, double s, bool turn, int x, int y) {
    int w = int(std::lround((r.x1 - r.x0 + 1) * s)), h = int(std::lround((r.y1 - r.y0 + 1) * s));
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i) {
            int si = turn ? w - 1 - i : i, sj = turn ? h - 1 - j : j;
            for (int c = 0; c < 3; ++c)
                dst.at(x + i, y + j, c) = std::round(litegraph::vision::sample(
                    src, r.x0 + (si + 0.5) / s - 0.5, r.y0 + (sj + 0.5) / s - 0.5, c));
        }
}

litegraph::ocr::options model_options() {
    litegraph::ocr::options o;
    o.det_model = litegraph::test::shared_model("ppocr_v3_det");
    o.cls_model = litegraph::test::shared_model("ppocr_mobile_v2.0_cls");
    return o;
}

}  // namespace

TEST_CASE("text_lines: the three lines of text320.png, upright") {
    auto o = model_options();
    if (o.det_model.empty() || o.cls_model.empty()) return;
    auto img = litegraph::test::load_picture(o.det_model / "reference" / "text320.png");
    auto bands = ink_bands(img);
    REQUIRE(bands.size() == 3);
    litegraph::ocr::pipeline f(o);
    auto lines = f.find_lines(img);
    REQUIRE(lines.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        check_covers(lines[i], bands[i]);
        CHECK(lines[i].angle == 0);
        CHECK(lines[i].angle_score > 0.9);
        CHECK(lines[i].box_score > 0.6);
    }
}

TEST_CASE("text_lines: text320.png turned by 180 degrees reads as three upside-down lines") {
    auto o = model_options();
    if (o.det_model.empty() || o.cls_model.empty()) return;
    auto img = litegraph::vision::rotate180(
        litegraph::test::load_picture(o.det_model / "reference" / "text320.png"));
    auto bands = ink_bands(img);
    REQUIRE(bands.size() == 3);
    litegraph::ocr::pipeline f(o);
    auto lines = f.find_lines(img);
    REQUIRE(lines.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        check_covers(lines[i], bands[i]);
        CHECK(lines[i].angle == 180);
        CHECK(lines[i].angle_score > 0.9);
    }
}

TEST_CASE("text_lines: lines of other sizes, one upside down, on a 700x430 canvas") {
    auto o = model_options();
    if (o.det_model.empty() || o.cls_model.empty()) return;
    auto src = litegraph::test::load_picture(o.det_model / "reference" / "text320.png");
    auto src_bands = ink_bands(src);
    REQUIRE(src_bands.size() == 3);
    image canvas(700, 430);
    std::fill(canvas.data.begin(), canvas.data.end(), 250.0f);
    auto pad = [](bbox b) { return bbox{b.x0 - 6, b.y0 - 6, b.x1 + 6, b.y1 + 6}; };
    paste(canvas, src, pad(src_bands[0]), 2.0, false, 40, 30);    // "litegraph", twice as large
    paste(canvas, src, pad(src_bands[1]), 1.5, true, 200, 190);   // "Paddle 2026", upside down
    paste(canvas, src, pad(src_bands[2]), 0.8, false, 420, 360);  // "DTCM + SRAM", smaller
    auto bands = ink_bands(canvas);
    REQUIRE(bands.size() == 3);
    litegraph::ocr::pipeline f(o);
    auto lines = f.find_lines(canvas);
    REQUIRE(lines.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) check_covers(lines[i], bands[i]);
    CHECK(lines[0].angle == 0);
    CHECK(lines[1].angle == 180);
    CHECK(lines[2].angle == 0);
    // The detector ran at 704x416: no multiple of 32 was asked of the image.
    CHECK(litegraph::vision::preprocess(canvas, f.det_pipeline()).input.shape() ==
          litegraph::shape_t{1, 3, 416, 704});
}
