// Top-down keypoints (vision/keypoints.hpp) against direct computations:
// maxima and the quarter-pixel shift on maps made by hand, DARK against a
// plain whole-array transcription of PaddleDetection's dark_postprocess and
// against the centre of a sampled Gaussian, the affine back to the picture,
// the config keys, and the errors.
#include <cmath>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "litegraph/vision/config.hpp"
#include "litegraph/vision/keypoints.hpp"
#include "support.hpp"

using namespace litegraph;
using vision::keypoint;

namespace {

/// PaddleDetection's dark_postprocess for one joint written out plainly:
/// the whole blurred map first (zero padding, separable [1/4, 1/2, 1/4]),
/// rescaled, floored, logged, then the Newton step by the explicit 2x2 inverse.
std::array<double, 2> plain_dark(const std::vector<float>& hm, int h, int w, int px, int py) {
    std::vector<double> pad(std::size_t(h + 2) * (w + 2), 0.0), rows(pad.size(), 0.0),
        blur(std::size_t(h) * w);
    auto P = [&](std::vector<double>& a, int x, int y) -> double& {
        return a[std::size_t(y) * (w + 2) + x];
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) P(pad, x + 1, y + 1) = hm[std::size_t(y) * w + x];
    for (int y = 0; y < h + 2; ++y)
        for (int x = 1; x <= w; ++x)
            P(rows, x, y) = 0.25 * P(pad, x - 1, y) + 0.5 * P(pad, x, y) + 0.25 * P(pad, x + 1, y);
    double m0 = -1e300, m1 = -1e300;
    for (int y = 1; y <= h; ++y)
        for (int x = 1; x <= w; ++x) {
            double v = 0.25 * P(rows, x, y - 1) + 0.5 * P(rows, x, y) + 0.25 * P(rows, x, y + 1);
            blur[std::size_t(y - 1) * w + (x - 1)] = v;
            m0 = std::max(m0, P(pad, x, y));
            m1 = std::max(m1, v);
        }
    for (auto& v : blur) v = std::log(std::max(v * m0 / m1, 1e-10));
    auto L = [&](int x, int y) { return blur[std::size_t(y) * w + x]; };
    double g[2] = {0.5 * (L(px + 1, py) - L(px - 1, py)), 0.5 * (L(px, py + 1) - L(px, py - 1))};
    double H[2][2] = {
        {0.25 * (L(px + 2, py) - 2 * L(px, py) + L(px - 2, py)),
         0.25 * (L(px + 1, py + 1) - L(px + 1, py - 1) - L(px - 1, py + 1) + L(px - 1, py - 1))},
        {0, 0.25 * (L(px, py + 2) - 2 * L(px, py) + L(px, py - 2))}};
    H[1][0] = H[0][1];
    double det = H[0][0] * H[1][1] - H[0][1] * H[1][0];
    if (det == 0) return {double(px), double(py)};
    double inv[2][2] = {{H[1][1] / det, -H[0][1] / det}, {-H[1][0] / det, H[0][0] / det}};
    return {px - (inv[0][0] * g[0] + inv[0][1] * g[1]), py - (inv[1][0] * g[0] + inv[1][1] * g[1])};
}

}  // namespace

TEST_CASE(
    "keypoints: the first maximum, its value, and the quarter pixel towards the higher side") {
    const int k = 4, h = 10, w = 12;
    std::vector<float> hm(std::size_t(k) * h * w, 0.1f);
    auto at = [&](int j, int x, int y) -> float& { return hm[(std::size_t(j) * h + y) * w + x]; };
    at(0, 5, 4) = 0.9f, at(0, 6, 4) = 0.5f, at(0, 5, 3) = 0.4f;    // right and up higher
    at(1, 1, 4) = 0.8f, at(1, 2, 4) = 0.7f;                        // x = 1: no shift (1 < x fails)
    at(2, 10, 8) = 0.7f, at(2, 9, 8) = 0.6f, at(2, 10, 7) = 0.3f;  // x = w - 2: shifted
    at(2, 3, 3) = 0.7f;                                            // a tie: the first wins
    for (auto& v : std::span(hm).subspan(3 * std::size_t(h) * w)) v = -0.5f;  // not above 0
    at(3, 7, 7) = -0.2f;
    auto p = vision::heatmap_keypoints(hm.data(), k, h, w, false);
    REQUIRE(p.size() == 4);
    CHECK(p[0].x == 5.25);
    CHECK(p[0].y == 3.75);
    CHECK(p[0].score == doctest::Approx(0.9));
    CHECK(p[1].x == 1.0);
    CHECK(p[1].y == 4.0);
    CHECK(p[2].x == 3.0);  // (3, 3) comes first in row-major order; neighbours equal
    CHECK(p[2].y == 3.0);
    at(2, 3, 3) = 0.1f;
    p = vision::heatmap_keypoints(hm.data(), k, h, w, false);
    CHECK(p[2].x == 9.75);
    CHECK(p[2].y == 7.75);
    CHECK(p[3].x == 0.0);
    CHECK(p[3].y == 0.0);
    CHECK(p[3].score == doctest::Approx(-0.2));
}

TEST_CASE("keypoints: DARK equals the plain transcription, and finds a Gaussian's centre") {
    const int k = 6, h = 16, w = 12;
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> hm(std::size_t(k) * h * w);
    for (auto& v : hm) v = u(rng);
    auto p = vision::heatmap_keypoints(hm.data(), k, h, w, true);
    auto raw = vision::heatmap_keypoints(hm.data(), k, h, w, false);
    int moved = 0;
    for (int j = 0; j < k; ++j) {
        std::vector<float> one(hm.begin() + std::ptrdiff_t(j) * h * w,
                               hm.begin() + std::ptrdiff_t(j + 1) * h * w);
        int best = int(std::max_element(one.begin(), one.end()) - one.begin());
        int px = best % w, py = best / w;
        INFO("joint " << j << " at " << px << ", " << py);
        CHECK(p[std::size_t(j)].score == doctest::Approx(one[std::size_t(best)]));
        if (1 < px && px < w - 2 && 1 < py && py < h - 2) {
            auto want = plain_dark(one, h, w, px, py);
            CHECK(p[std::size_t(j)].x == doctest::Approx(want[0]).epsilon(1e-9));
            CHECK(p[std::size_t(j)].y == doctest::Approx(want[1]).epsilon(1e-9));
            moved += p[std::size_t(j)].x != px || p[std::size_t(j)].y != py;
        } else {
            CHECK(p[std::size_t(j)].x == px);  // DARK leaves a border maximum as it is
            CHECK(p[std::size_t(j)].y == py);
        }
        CHECK(std::abs(raw[std::size_t(j)].x - px) <= 0.25);
    }
    CHECK(moved > 0);

    // A sampled Gaussian centred between pixels: DARK recovers the centre
    // (to the blur's bias), the quarter shift only to a quarter pixel.
    const double cx = 20.3, cy = 13.7, sigma = 2.0;
    const int gh = 32, gw = 40;
    std::vector<float> g(std::size_t(gh) * gw);
    for (int y = 0; y < gh; ++y)
        for (int x = 0; x < gw; ++x)
            g[std::size_t(y) * gw + x] =
                float(std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (2 * sigma * sigma)));
    auto d = vision::heatmap_keypoints(g.data(), 1, gh, gw, true)[0];
    auto q = vision::heatmap_keypoints(g.data(), 1, gh, gw, false)[0];
    CHECK(std::abs(d.x - cx) < 0.05);
    CHECK(std::abs(d.y - cy) < 0.05);
    CHECK(q.x == 20.25);
    CHECK(q.y == 13.75);
}

TEST_CASE("keypoints: back to the picture as transform_preds, centre rounded half to even") {
    // 192 x 256 pictures are the model's own size: x 4 from 48 x 64 maps.
    auto a = vision::heatmap_to_picture(10.25, 20.0, 48, 64, 192, 256);
    CHECK(a[0] == 41.0);
    CHECK(a[1] == 80.0);
    // 301 wide: centre round(150.5) = 150; 303: round(151.5) = 152; one scale W / w.
    auto b = vision::heatmap_to_picture(24.0, 32.0, 48, 64, 301, 500);
    CHECK(b[0] == 150.0);
    CHECK(b[1] == 250.0);
    b = vision::heatmap_to_picture(0.0, 0.0, 48, 64, 303, 401);
    CHECK(b[0] == doctest::Approx(152.0 - 24 * 303.0 / 48));
    CHECK(b[1] == doctest::Approx(200.0 - 32 * 303.0 / 48));
    // The forward warp of TopDownEvalAffine (dst = (src - W/2) 192/W + 96),
    // a quarter of it on the map, comes back to the picture point (even sizes).
    for (auto [sx, sy] : {std::pair{10.0, 300.0}, {250.0, 5.0}, {399.0, 611.0}}) {
        const int W = 400, H = 612;
        const double k = 192.0 / W;
        const double hx = ((sx - W / 2.0) * k + 96) / 4, hy = ((sy - H / 2.0) * k + 128) / 4;
        auto c = vision::heatmap_to_picture(hx, hy, 48, 64, W, H);
        CHECK(c[0] == doctest::Approx(sx));
        CHECK(c[1] == doctest::Approx(sy));
    }
    // A maximum in the padding of a wide picture is clamped to its pixels.
    std::vector<float> hm(48 * 64, 0.0f);
    hm[63 * 48 + 47] = 1.0f;  // bottom right corner of the map
    auto p = vision::top_down_keypoints(hm.data(), 1, 64, 48, 400, 100, false)[0];
    CHECK(p.x == doctest::Approx(200 + 23 * 400.0 / 48));
    CHECK(p.y == 99.0);
}

TEST_CASE("keypoints: the config keys, the skeleton and the errors") {
    auto cfg = nlohmann::json::parse(R"({"arch": "HRNet", "metric": "KeyPointTopDownCOCOEval",
        "Preprocess": [{"type": "TopDownEvalAffine", "trainsize": [192, 256]},
                       {"type": "Permute"}]})");
    auto m = vision::read_model_config(cfg);
    CHECK(m.top_down_keypoints());
    CHECK(m.use_dark);
    CHECK(m.skeleton.empty());
    cfg["use_dark"] = false;
    cfg["skeleton"] = nlohmann::json::parse("[[0, 1], [1, 2]]");
    m = vision::read_model_config(cfg);
    CHECK(!m.use_dark);
    REQUIRE(m.skeleton.size() == 2);
    CHECK(m.skeleton[1] == std::array<int, 2>{1, 2});
    cfg.erase("arch");
    CHECK(vision::read_model_config(cfg).top_down_keypoints());  // by the metric alone
    cfg["metric"] = "COCO";
    CHECK(!vision::read_model_config(cfg).top_down_keypoints());  // a detector's
    cfg["skeleton"] = nlohmann::json::parse("[[0, 1, 2]]");
    CHECK_THROWS_WITH_AS(vision::read_model_config(cfg), doctest::Contains("skeleton[0]"),
                         usage_error);
    cfg["skeleton"] = nlohmann::json::parse("[[0, -1]]");
    CHECK_THROWS_AS(vision::read_model_config(cfg), usage_error);
    cfg["skeleton"] = nullptr;
    cfg["use_dark"] = "yes";
    CHECK_THROWS_WITH_AS(vision::read_model_config(cfg), doctest::Contains("use_dark"),
                         usage_error);

    std::vector<float> hm(2 * 4 * 4, 0.5f);
    CHECK_THROWS_WITH_AS(vision::check_skeleton({{0, 2}}, 2),
                         doctest::Contains("names joint 2, the model gives 2"), usage_error);
    CHECK_THROWS_AS(vision::heatmap_keypoints(hm.data(), 0, 4, 4, true), usage_error);
    hm[5] = std::nanf("");
    CHECK_THROWS_WITH_AS(vision::heatmap_keypoints(hm.data(), 2, 4, 4, true),
                         doctest::Contains("not finite"), usage_error);
    CHECK_THROWS_AS(vision::top_down_keypoints(hm.data(), 2, 4, 4, 0, 10, true), usage_error);
    CHECK(vision::coco_skeleton().size() == 17);
    vision::check_skeleton(vision::coco_skeleton(), 17);
}

TEST_CASE("keypoints: drawn points and skeleton lines") {
    vision::image img(40, 30, 3);
    std::vector<keypoint> pts{{5, 5, 1}, {35, 5, 1}};
    vision::draw_keypoints(img, pts, {{0, 1}}, 2, 1);
    CHECK(img.at(5, 5, 0) == 255.0f);   // joint 0: red
    CHECK(img.at(35, 5, 1) == 170.0f);  // joint 1: orange
    CHECK(img.at(20, 5, 0) == 230.0f);  // the line between
    CHECK(img.at(20, 20, 0) == 0.0f);
    CHECK(img.at(8, 5, 0) == 0.0f);  // joint 0's black rim over the line
    CHECK(img.at(8, 5, 1) == 0.0f);
    CHECK_THROWS_AS(vision::draw_keypoints(img, pts, {{0, 3}}), usage_error);
}
