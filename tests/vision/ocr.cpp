// The steps of the OCR pipeline (vision/ocr.hpp) against plain
// reimplementations on generated pictures and numbers: reading order
// (PaddleOCR's sorted_boxes as written there), the perspective crop (an
// independent bicubic sampler along the quad's edges), the recognizer's
// batched input (resize and pad computed per pixel) and the CTC decode.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "litegraph/vision/ocr.hpp"
#include "support.hpp"

using namespace litegraph;
using vision::image;
using vision::point;
using vision::quad;
namespace vo = vision::ocr;

namespace {

/// A picture of smooth colour gradients and a few sharp edges.
image pattern(int w, int h, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    double a = u(rng), b = u(rng), c = u(rng);
    image img(w, h, 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            img.at(x, y, 0) = std::round(127 + 120 * std::sin(0.07 * x * (1 + a) + 0.03 * y));
            img.at(x, y, 1) = std::round(127 + 120 * std::cos(0.05 * y * (1 + b) - 0.02 * x));
            img.at(x, y, 2) = ((x / 7 + y / 5) % 3 == 0) ? 230 : std::round(40 + 100 * c);
        }
    return img;
}

/// sorted_boxes as PaddleOCR writes it, on the boxes themselves.
std::vector<quad> sorted_boxes_plain(std::vector<quad> b) {
    std::stable_sort(b.begin(), b.end(), [](const quad& x, const quad& y) {
        return std::pair(x[0][1], x[0][0]) < std::pair(y[0][1], y[0][0]);
    });
    int n = int(b.size());
    for (int i = 0; i < n - 1; ++i)
        for (int j = i; j >= 0; --j) {
            if (std::abs(b[j + 1][0][1] - b[j][0][1]) < 10 && b[j + 1][0][0] < b[j][0][0])
                std::swap(b[j], b[j + 1]);
            else
                break;
        }
    return b;
}

double keys(double t) {  // Keys' cubic, a = -0.75 (OpenCV's INTER_CUBIC)
    t = std::abs(t);
    const double a = -0.75;
    return t <= 1  ? (a + 2) * t * t * t - (a + 3) * t * t + 1
           : t < 2 ? a * t * t * t - 5 * a * t * t + 8 * a * t - 4 * a
                   : 0;
}

double cubic_plain(const image& img, double x, double y, int c) {
    double v = 0;
    for (int j = int(std::floor(y)) - 1; j <= int(std::floor(y)) + 2; ++j)
        for (int i = int(std::floor(x)) - 1; i <= int(std::floor(x)) + 2; ++i)
            v += img.at(std::clamp(i, 0, img.width - 1), std::clamp(j, 0, img.height - 1), c) *
                 keys(x - i) * keys(y - j);
    return v;
}

}  // namespace

TEST_CASE("ocr reading_order: PaddleOCR's sorted_boxes on random pages") {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        int n = 1 + int(rng() % 12);
        std::vector<quad> boxes;
        for (int i = 0; i < n; ++i) {
            // Rows about 20 pixels apart, jittered by up to 12: rows that are
            // within 10 pixels of each other and rows that are not.
            double y = 20.0 * (rng() % 5) + double(rng() % 13), x = double(rng() % 300);
            boxes.push_back(
                {point{x, y}, point{x + 50, y}, point{x + 50, y + 15}, point{x, y + 15}});
        }
        auto plain = sorted_boxes_plain(boxes);
        auto order = vo::reading_order(boxes);
        REQUIRE(order.size() == boxes.size());
        for (std::size_t i = 0; i < order.size(); ++i) CHECK(boxes[order[i]] == plain[i]);
    }
    // The rule by hand: within 10 pixels, left to right; further apart, top to bottom.
    std::vector<quad> row{{point{200, 12}, point{260, 12}, point{260, 30}, point{200, 30}},
                          {point{10, 17}, point{90, 17}, point{90, 35}, point{10, 35}},
                          {point{5, 40}, point{90, 40}, point{90, 60}, point{5, 60}}};
    CHECK(vo::reading_order(row) == std::vector<std::size_t>{1, 0, 2});
    CHECK(vo::reading_order({}).empty());
}

TEST_CASE("ocr perspective_transform maps the corners, also for a real perspective") {
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-30, 30);
    for (int t = 0; t < 50; ++t) {
        quad to{point{100 + u(rng), 50 + u(rng)}, point{400 + u(rng), 60 + u(rng)},
                point{390 + u(rng), 200 + u(rng)}, point{90 + u(rng), 190 + u(rng)}};
        quad from{point{0, 0}, point{300, 0}, point{300, 140}, point{0, 140}};
        auto m = vo::perspective_transform(from, to);
        for (int i = 0; i < 4; ++i) {
            auto p = vo::apply(m, from[i][0], from[i][1]);
            CHECK(p[0] == doctest::Approx(to[i][0]).epsilon(1e-9));
            CHECK(p[1] == doctest::Approx(to[i][1]).epsilon(1e-9));
        }
    }
    quad line{point{0, 0}, point{5, 5}, point{10, 10}, point{15, 15}};
    CHECK_THROWS_AS(vo::perspective_transform(line, line), usage_error);
}

TEST_CASE("ocr crop_quad: a pixel rectangle is a copy; a turned one samples along its edges") {
    auto img = pattern(160, 120, 1);
    SUBCASE("axis-aligned, whole pixels") {
        quad q{point{17, 9}, point{97, 9}, point{97, 39}, point{17, 39}};
        auto c = vo::crop_quad(img, q);
        REQUIRE(c.width == 80);
        REQUIRE(c.height == 30);
        for (int y = 0; y < 30; ++y)
            for (int x = 0; x < 80; ++x)
                for (int k = 0; k < 3; ++k) CHECK(c.at(x, y, k) == img.at(17 + x, 9 + y, k));
    }
    SUBCASE("a rotated rectangle (a parallelogram: the map is affine)") {
        double ang = 0.3, w = 90.4, h = 28.4;
        point o{30, 20}, ux{std::cos(ang), std::sin(ang)}, uy{-std::sin(ang), std::cos(ang)};
        quad q{o, point{o[0] + w * ux[0], o[1] + w * ux[1]},
               point{o[0] + w * ux[0] + h * uy[0], o[1] + w * ux[1] + h * uy[1]},
               point{o[0] + h * uy[0], o[1] + h * uy[1]}};
        auto c = vo::crop_quad(img, q);
        REQUIRE(c.width == 90);  // the edges' lengths, truncated
        REQUIRE(c.height == 28);
        int off = 0;
        for (int y = 0; y < c.height; ++y)
            for (int x = 0; x < c.width; ++x)
                for (int k = 0; k < 3; ++k) {
                    // (0, 0) -> corner 0, (width, 0) -> corner 1, (0, height) -> corner 3.
                    double fx = double(x) / c.width, fy = double(y) / c.height;
                    double sx = q[0][0] + fx * (q[1][0] - q[0][0]) + fy * (q[3][0] - q[0][0]);
                    double sy = q[0][1] + fx * (q[1][1] - q[0][1]) + fy * (q[3][1] - q[0][1]);
                    double want = std::clamp(std::round(cubic_plain(img, sx, sy, k)), 0.0, 255.0);
                    off += std::abs(c.at(x, y, k) - want) > 1;  // rounding of a tie at most
                }
        CHECK(off == 0);
    }
    SUBCASE("a tall box is turned to read left to right (np.rot90)") {
        quad q{point{40, 10}, point{60, 10}, point{60, 90}, point{40, 90}};
        auto c = vo::crop_quad(img, q);
        REQUIRE(c.width == 80);
        REQUIRE(c.height == 20);
        // rot90: new[y][x] = old[x][W - 1 - y], old W = 20.
        for (int y = 0; y < 20; ++y)
            for (int x = 0; x < 80; ++x) CHECK(c.at(x, y, 1) == img.at(40 + 19 - y, 10 + x, 1));
    }
    SUBCASE("a degenerate box still gives pixels; outside the picture the edge repeats") {
        quad q{point{5, 5}, point{5, 5}, point{5, 5}, point{5, 5}};
        auto c = vo::crop_quad(img, q);
        CHECK(c.width == 1);
        CHECK(c.height == 1);
        quad out{point{150, 110}, point{190, 110}, point{190, 130}, point{150, 130}};
        auto e = vo::crop_quad(img, out);
        CHECK(e.at(39, 19, 0) == img.at(159, 119, 0));
    }
}

TEST_CASE("ocr batch_input: resized by the ratio, padded to the widest, in [-1, 1], BGR") {
    std::vector<image> crops{pattern(60, 20, 2), pattern(200, 25, 3), pattern(30, 31, 4)};
    std::vector<const image*> ptrs;
    for (auto& c : crops) ptrs.push_back(&c);
    const int h = 32, min_w = 100;
    auto t = vo::batch_input(ptrs, h, min_w);
    double ratio = std::max(double(min_w) / h, 200.0 / 25);
    int W = int(h * ratio);
    REQUIRE(t.shape() == shape_t{3, 3, h, W});
    auto v = t.span<float>();
    for (std::size_t n = 0; n < crops.size(); ++n) {
        const image& c = crops[n];
        int rw = std::min(W, int(std::ceil(h * double(c.width) / c.height)));
        auto r = vision::resize(c, rw, h);
        for (int k = 0; k < 3; ++k)
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < W; ++x) {
                    // plane k holds channel 2 - k of the RGB picture (B, G, R)
                    float want = x < rw ? (r.at(x, y, 2 - k) / 255.0f - 0.5f) / 0.5f : 0.0f;
                    float got =
                        v[((n * 3 + std::size_t(k)) * h + std::size_t(y)) * W + std::size_t(x)];
                    if (got != want)
                        FAIL_CHECK("n " << n << " c " << k << " (" << x << "," << y << "): " << got
                                        << " vs " << want);
                }
    }
    // The classifier's form: one fixed width, wider crops squeezed into it.
    auto f = vo::batch_input(ptrs, 48, 192, true);
    CHECK(f.shape() == shape_t{3, 3, 48, 192});
    CHECK_THROWS_AS(vo::batch_input({}, 32, 100), usage_error);
}

TEST_CASE("ocr ctc_greedy: argmax, repeats merged, blanks dropped, mean of the kept") {
    auto d = vo::dictionary::from_text("a\r\nb\nc\n \n", false);
    REQUIRE(d.chars == std::vector<std::string>{"a", "b", "c", " "});
    CHECK(vo::dictionary::from_text("x\ny", true).chars == std::vector<std::string>{"x", "y", " "});
    std::mt19937 rng(11);
    const int C = 5;
    for (int trial = 0; trial < 100; ++trial) {
        int T = int(rng() % 30);
        std::vector<float> p(std::size_t(T) * C);
        for (auto& x : p) x = float(rng() % 1000) / 1000.0f;
        // Plain: the argmax of each step, then the kept ones.
        std::string text;
        double sum = 0;
        int kept = 0, prev = -1;
        for (int t = 0; t < T; ++t) {
            int best = 0;
            for (int k = 1; k < C; ++k)
                if (p[std::size_t(t * C + k)] > p[std::size_t(t * C + best)]) best = k;
            if (best != 0 && best != prev)
                text += d.chars[std::size_t(best - 1)], ++kept, sum += p[std::size_t(t * C + best)];
            prev = best;
        }
        auto r = vo::ctc_greedy(p.data(), T, C, &d);
        CHECK(r.text == text);
        CHECK(r.classes.size() == std::size_t(kept));
        CHECK(r.score == doctest::Approx(kept ? sum / kept : 0.0));
    }
    // "aa-a" with a blank between: two a's; "bb" one b.
    std::vector<float> p{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0,
                         0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    CHECK(vo::ctc_greedy(p.data(), 6, C, &d).text == "aab");
    CHECK_THROWS_AS(vo::ctc_greedy(p.data(), 6, 4, &d), usage_error);
}

TEST_CASE("ocr space_char_for: the class count decides, a mismatch names both numbers") {
    CHECK_FALSE(vo::space_char_for(136, 137));
    CHECK(vo::space_char_for(6623, 6625));
    CHECK(vo::space_char_for(10, -1, 1));
    try {
        vo::space_char_for(100, 137);
        FAIL("no error");
    } catch (const usage_error& e) {
        std::string m = e.what();
        CHECK(m.find("100") != std::string::npos);
        CHECK(m.find("137") != std::string::npos);
    }
    CHECK_THROWS_AS(vo::space_char_for(136, 137, 1), usage_error);
}

TEST_CASE("edit_distance: insertions, deletions and substitutions of one element") {
    using litegraph::vision::ocr::edit_distance;
    CHECK(edit_distance(std::string("kitten"), std::string("sitting")) == 3);
    CHECK(edit_distance(std::string(""), std::string("abc")) == 3);
    CHECK(edit_distance(std::string("abc"), std::string("")) == 3);
    CHECK(edit_distance(std::string("DTCM + SRAM"), std::string("DTCM + SRAM")) == 0);
    CHECK(edit_distance(std::string("DTCM + SRAM"), std::string("DTCMT SRAM")) == 2);
    CHECK(edit_distance(std::vector<int>{1, 2, 3, 4}, std::vector<int>{2, 3, 4, 5}) == 2);
    CHECK(edit_distance(std::vector<int>{7}, std::vector<int>{8}) == 1);
}
