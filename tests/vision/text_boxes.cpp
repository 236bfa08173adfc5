// DB post-processing and its geometry (vision/text_boxes.hpp) against direct
// computations: the rectangle a rotated grid of points fills, and the boxes of
// a map with known regions.
#include <cmath>
#include <numbers>
#include <vector>

#include "litegraph/vision/text_boxes.hpp"
#include "support.hpp"

using litegraph::vision::point;

TEST_CASE("min_area_rect: the rectangle a rotated point grid fills, at several angles") {
    for (double deg : {0.0, 17.0, 45.0, 80.0, 120.0}) {
        double a = deg * std::numbers::pi / 180;
        std::vector<point> pts;
        for (int i = 0; i <= 40; ++i)
            for (int j = 0; j <= 10; ++j)
                pts.push_back({100 + i * std::cos(a) - j * std::sin(a),
                               50 + i * std::sin(a) + j * std::cos(a)});
        auto r = litegraph::vision::min_area_rect(pts);
        INFO("angle " << deg);
        CHECK(2 * std::max(r.half_w, r.half_h) == doctest::Approx(40).epsilon(1e-9));
        CHECK(2 * std::min(r.half_w, r.half_h) == doctest::Approx(10).epsilon(1e-9));
        point c{100 + 20 * std::cos(a) - 5 * std::sin(a), 50 + 20 * std::sin(a) + 5 * std::cos(a)};
        CHECK(r.centre[0] == doctest::Approx(c[0]));
        CHECK(r.centre[1] == doctest::Approx(c[1]));
    }
}

TEST_CASE(
    "db_boxes: regions above the threshold, scored, unclipped; small and faint ones dropped") {
    const int w = 120, h = 60;
    std::vector<float> map(w * h, 0.05f);
    auto fill = [&](int x0, int y0, int x1, int y1, float v) {
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) map[y * w + x] = v;
    };
    fill(10, 10, 49, 19, 0.9f);   // 40 x 10 pixels: a line
    fill(70, 30, 109, 41, 0.5f);  // above thresh, but its mean 0.5 < box_thresh 0.6
    fill(5, 50, 6, 51, 0.95f);    // 2 x 2: shorter than min_size
    auto boxes = litegraph::vision::db_boxes(map.data(), w, h);
    REQUIRE(boxes.size() == 1);
    auto& b = boxes[0];
    CHECK(b.score == doctest::Approx(0.9).epsilon(1e-6));
    // Pixel centres span 39 x 9; d = area * 1.5 / perimeter = 39*9*1.5/96.
    double d = 39.0 * 9 * 1.5 / 96;
    CHECK(b.box[0][0] == doctest::Approx(10 - d));
    CHECK(b.box[0][1] == doctest::Approx(10 - d));
    CHECK(b.box[2][0] == doctest::Approx(49 + d));
    CHECK(b.box[2][1] == doctest::Approx(19 + d));
}
