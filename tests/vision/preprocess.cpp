// Preprocessing steps against plain reimplementations written here from the
// exporters' deployment code (double precision, written out per pixel), on
// several sizes; the configs' parsing, with the errors it must give.
#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "litegraph/vision/config.hpp"
#include "litegraph/vision/preprocess.hpp"
#include "support.hpp"

using namespace litegraph;
using namespace litegraph::vision;

namespace {

image random_image(int w, int h, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> px(static_cast<std::size_t>(w) * h * 3);
    for (auto& p : px) p = static_cast<std::uint8_t>(rng() % 256);
    return image::from_pixels(px.data(), w, h, 3);
}

/// Plain bilinear resize of one channel: OpenCV's half-pixel mapping,
/// neighbours clamped, computed in double and rounded.
double plain_bilinear(const image& src, int c, double sx, double sy, int x, int y) {
    double fx = (x + 0.5) * sx - 0.5, fy = (y + 0.5) * sy - 0.5;
    int x0 = static_cast<int>(std::floor(fx)), y0 = static_cast<int>(std::floor(fy));
    double ax = fx - x0, ay = fy - y0;
    auto px = [&](int xx, int yy) {
        xx = xx < 0 ? 0 : (xx >= src.width ? src.width - 1 : xx);
        yy = yy < 0 ? 0 : (yy >= src.height ? src.height - 1 : yy);
        return double(src.data[(static_cast<std::size_t>(yy) * src.width + xx) * src.channels + c]);
    };
    return (1 - ay) * ((1 - ax) * px(x0, y0) + ax * px(x0 + 1, y0)) +
           ay * ((1 - ax) * px(x0, y0 + 1) + ax * px(x0 + 1, y0 + 1));
}

}  // namespace

TEST_CASE("resize, bilinear, equals the plain loop (uint8 rounding) on several sizes") {
    for (auto [w, h, tw, th] : {std::array{37, 23, 64, 48}, std::array{200, 120, 33, 71},
                                std::array{5, 9, 5, 9}, std::array{64, 64, 320, 320}}) {
        auto src = random_image(w, h, static_cast<std::uint32_t>(w * 131 + h));
        auto out = resize(src, tw, th, interpolation::linear);
        REQUIRE(out.width == tw);
        REQUIRE(out.height == th);
        int off = 0;
        for (int y = 0; y < th; ++y)
            for (int x = 0; x < tw; ++x)
                for (int c = 0; c < 3; ++c) {
                    double want =
                        std::round(plain_bilinear(src, c, double(w) / tw, double(h) / th, x, y));
                    double got = out.at(x, y, c);
                    // float vs double at exact .5 ties: at most one step apart
                    CHECK(std::abs(got - want) <= 1.0);
                    off += got != want;
                }
        CHECK(off <= tw * th * 3 / 100);  // ties are rare
    }
}

TEST_CASE("resize, nearest: the source pixel floor(x * scale)") {
    auto src = random_image(30, 20, 7);
    auto out = resize(src, 45, 13, interpolation::nearest);
    for (int y = 0; y < 13; ++y)
        for (int x = 0; x < 45; ++x) {
            int sx = std::min(29, static_cast<int>(std::floor(x * 30.0 / 45))),
                sy = std::min(19, static_cast<int>(std::floor(y * 20.0 / 13)));
            CHECK(out.at(x, y, 1) == src.at(sx, sy, 1));
        }
}

TEST_CASE(
    "resize, cubic: a constant image stays constant; a ramp gets OpenCV's A = -0.75 weights") {
    image flat(16, 16, 1);
    std::fill(flat.data.begin(), flat.data.end(), 77.0f);
    auto out = resize(flat, 40, 7, interpolation::cubic);
    for (float v : out.data) CHECK(v == 77.0f);
    image ramp(32, 4, 1);
    ramp.integral = false;
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 32; ++x) ramp.at(x, y, 0) = float(x);
    auto up = resize(ramp, 64, 4, interpolation::cubic);
    // Doubling puts every destination pixel at a source offset of 0.25 or 0.75;
    // OpenCV's cubic coefficients there are (-0.10546875, 0.87890625,
    // 0.26171875, -0.03515625) and their mirror, so a ramp i reads x0 + 0.296875
    // and x0 + 0.703125 (A = -0.75 is not exact on ramps; A = -0.5 would be).
    for (int x = 4; x < 60; ++x) {
        double p = (x + 0.5) / 2 - 0.5, x0 = std::floor(p);
        double want = x0 + (p - x0 == 0.25 ? 0.296875 : 0.703125);
        CHECK(up.at(x, 1, 0) == doctest::Approx(want).epsilon(1e-6));
    }
}

TEST_CASE(
    "Resize keep_ratio both ways: the scale PaddleDetection computes, im_shape and scale_factor") {
    auto src = random_image(300, 200, 3);
    pipeline p;
    p.steps.emplace_back(resize_step{320, 320, true, interpolation::linear});
    auto r = preprocess(src, p);
    // keep_ratio: scale = 320 / 200 = 1.6; round(1.6 * 300) = 480 > 320, so 320 / 300
    double s = 320.0 / 300;
    CHECK(r.input.shape() ==
          shape_t{1, 3, static_cast<std::int64_t>(std::nearbyint(200 * s)), 320});
    CHECK(r.im_shape[0] == float(std::nearbyint(200 * s)));
    CHECK(r.scale_factor[0] == doctest::Approx(s));
    CHECK(r.scale_factor[1] == doctest::Approx(s));

    pipeline q;
    q.steps.emplace_back(resize_step{320, 416, false, interpolation::linear});
    auto r2 = preprocess(src, q);
    CHECK(r2.input.shape() == shape_t{1, 3, 320, 416});
    CHECK(r2.scale_factor[0] == doctest::Approx(320.0 / 200));
    CHECK(r2.scale_factor[1] == doctest::Approx(416.0 / 300));
    // The values: the plain bilinear loop with cv2's fx, fy mapping, planar.
    auto plane = r2.input.span<float>();
    for (int y = 0; y < 320; y += 37)
        for (int x = 0; x < 416; x += 29)
            CHECK(std::abs(plane[(2 * 320 + y) * 416 + x] -
                           std::round(plain_bilinear(src, 2, 300.0 / 416, 200.0 / 320, x, y))) <=
                  1.0);
}

TEST_CASE("NormalizeImage, Permute, PadStride and the channel order against plain loops") {
    auto src = random_image(33, 17, 11);
    pipeline p;
    p.order = channel_order::bgr;
    p.steps.emplace_back(
        normalize_step{1.0f / 255, {0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}});
    p.steps.emplace_back(permute_step{});
    p.steps.emplace_back(pad_stride_step{32});
    auto r = preprocess(src, p);
    REQUIRE(r.input.shape() == shape_t{1, 3, 32, 64});
    auto v = r.input.span<float>();
    const double mean[3] = {0.485, 0.456, 0.406}, sd[3] = {0.229, 0.224, 0.225};
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < 32; ++y)
            for (int x = 0; x < 64; ++x) {
                double want = 0;
                if (x < 33 && y < 17) {
                    // BGR: channel c of the model is RGB channel 2 - c of the image
                    double px = src.data[(static_cast<std::size_t>(y) * 33 + x) * 3 + (2 - c)];
                    want = (px / 255.0 - mean[c]) / sd[c];
                }
                CHECK(v[(c * 32 + y) * 64 + x] == doctest::Approx(want).epsilon(1e-5));
            }
}

namespace {

/// The 2x3 affine map sending three points to three others (as
/// cv2.getAffineTransform solves it), by Cramer's rule.
std::array<double, 6> affine_from(const double src[3][2], const double dst[3][2]) {
    const double d = src[0][0] * (src[1][1] - src[2][1]) - src[0][1] * (src[1][0] - src[2][0]) +
                     (src[1][0] * src[2][1] - src[2][0] * src[1][1]);
    std::array<double, 6> m{};
    for (int r = 0; r < 2; ++r) {
        const double u0 = dst[0][r], u1 = dst[1][r], u2 = dst[2][r];
        m[r * 3 + 0] = (u0 * (src[1][1] - src[2][1]) - src[0][1] * (u1 - u2) +
                        (u1 * src[2][1] - u2 * src[1][1])) /
                       d;
        m[r * 3 + 1] = (src[0][0] * (u1 - u2) - u0 * (src[1][0] - src[2][0]) +
                        (src[1][0] * u2 - src[2][0] * u1)) /
                       d;
        m[r * 3 + 2] = (src[0][0] * (src[1][1] * u2 - src[2][1] * u1) -
                        src[0][1] * (src[1][0] * u2 - src[2][0] * u1) +
                        u0 * (src[1][0] * src[2][1] - src[2][0] * src[1][1])) /
                       d;
    }
    return m;
}

}  // namespace

TEST_CASE("TopDownEvalAffine against PaddleDetection's three-point construction, both forms") {
    for (const auto& dims :
         {std::array{40, 60, 24, 32}, std::array{90, 30, 48, 64}, std::array{17, 17, 17, 17}}) {
        const int w = dims[0], h = dims[1], tw = dims[2], th = dims[3];
        for (bool udp : {false, true}) {
            INFO(w << "x" << h << " -> " << tw << "x" << th << (udp ? " udp" : ""));
            auto src = random_image(w, h, static_cast<std::uint32_t>(w + 7 * h));
            pipeline p;
            p.steps.emplace_back(top_down_affine_step{tw, th, udp});
            auto r = preprocess(src, p);
            REQUIRE(r.input.shape() == shape_t{1, 3, th, tw});
            // The forward map: get_affine_transform(centre, scale = size, 0,
            // trainsize) from three points, or get_warp_matrix for udp.
            std::array<double, 6> m;
            if (!udp) {
                const double cx = w / 2.0, cy = h / 2.0;
                const double s3[3][2] = {
                    {cx, cy}, {cx, cy - w * 0.5}, {cx - w * 0.5, cy - w * 0.5}};
                const double d3[3][2] = {{tw * 0.5, th * 0.5},
                                         {tw * 0.5, th * 0.5 - tw * 0.5},
                                         {tw * 0.5 - tw * 0.5, th * 0.5 - tw * 0.5}};
                m = affine_from(s3, d3);
            } else {
                const double sx = (tw - 1.0) / w, sy = (th - 1.0) / h;
                m = {sx, 0, sx * (-0.5 * w + 0.5 * w), 0, sy, sy * (-0.5 * h + 0.5 * h)};
            }
            // Inverse of [a b c; d e f] for each output pixel; bilinear, 0 outside.
            const double det = m[0] * m[4] - m[1] * m[3];
            auto v = r.input.span<float>();
            for (int y = 0; y < th; ++y)
                for (int x = 0; x < tw; ++x) {
                    const double dx = x - m[2], dy = y - m[5];
                    const double sx = (m[4] * dx - m[1] * dy) / det,
                                 sy = (-m[3] * dx + m[0] * dy) / det;
                    const int x0 = int(std::floor(sx)), y0 = int(std::floor(sy));
                    for (int c = 0; c < 3; ++c) {
                        auto px = [&](int xx, int yy) {
                            return xx < 0 || yy < 0 || xx >= w || yy >= h
                                       ? 0.0
                                       : double(src.at(xx, yy, c));
                        };
                        const double ax = sx - x0, ay = sy - y0;
                        const double want =
                            std::round((1 - ay) * ((1 - ax) * px(x0, y0) + ax * px(x0 + 1, y0)) +
                                       ay * ((1 - ax) * px(x0, y0 + 1) + ax * px(x0 + 1, y0 + 1)));
                        CHECK(std::abs(v[(c * th + y) * tw + x] - want) <= 1.0);
                    }
                }
        }
    }
    // From a config, and its errors.
    auto cfg = read_model_config(nlohmann::json::parse(
        R"({"Preprocess": [{"type": "TopDownEvalAffine", "trainsize": [192, 256]},
                           {"type": "NormalizeImage", "is_scale": true}, {"type": "Permute"}]})"));
    auto r = preprocess(random_image(100, 50, 3), cfg.preprocess);
    CHECK(r.input.shape() == shape_t{1, 3, 256, 192});
    CHECK_THROWS_WITH_AS(read_model_config(nlohmann::json::parse(
                             R"({"Preprocess": [{"type": "TopDownEvalAffine"}]})")),
                         doctest::Contains("has no trainsize"), usage_error);
    CHECK_THROWS_WITH_AS(read_model_config(nlohmann::json::parse(
                             R"({"Preprocess": [{"type": "Resize", "target_size": []}]})")),
                         doctest::Contains("Preprocess[0].target_size"), usage_error);
}

TEST_CASE("DetResizeForTest: limit types and resize_long as PaddleOCR rounds them") {
    auto src = random_image(500, 230, 5);
    auto size_of = [&](det_resize_step s) {
        pipeline p;
        p.steps.emplace_back(s);
        auto r = preprocess(src, p);
        return std::pair{r.input.shape()[3], r.input.shape()[2]};
    };
    det_resize_step max960;
    max960.limit_side_len = 960, max960.limit_type = "max";
    CHECK(size_of(max960) == std::pair<std::int64_t, std::int64_t>{
                                 512, 224});  // ratio 1: round(500/32)=16, round(230/32)=7
    det_resize_step max320;
    max320.limit_side_len = 320, max320.limit_type = "max";
    // ratio 320/500: int(147.2)=147 -> round(4.59)=5 -> 160; 320 -> 320
    CHECK(size_of(max320) == std::pair<std::int64_t, std::int64_t>{320, 160});
    det_resize_step min736;  // the default: shorter side up to 736
    // ratio 736/230 = 3.2: int(1600) = 1600; int(736) = 736 (= 23 * 32)
    CHECK(size_of(min736) == std::pair<std::int64_t, std::int64_t>{1600, 736});
    det_resize_step longest;
    longest.k = det_resize_step::kind::resize_long, longest.resize_long = 960;
    // ratio 960/500: 960 -> 1024 (multiple of 128), int(441.6)=441 -> 512
    CHECK(size_of(longest) == std::pair<std::int64_t, std::int64_t>{1024, 512});
    det_resize_step bad;
    bad.limit_type = "sideways";
    CHECK_THROWS_WITH_AS(size_of(bad), doctest::Contains("limit_type 'sideways'"), usage_error);
}

TEST_CASE("RecResizeImg: height 48, width by the ratio, [-1, 1], zero padding") {
    auto src = random_image(100, 50, 9);
    pipeline p;
    p.steps.emplace_back(rec_resize_step{3, 48, 320});
    auto r = preprocess(src, p);
    REQUIRE(r.input.shape() == shape_t{1, 3, 48, 320});
    auto v = r.input.span<float>();
    int inside = 0;  // ceil(48 * 2) = 96 columns of image, the rest zeros
    for (int x = 0; x < 96; ++x) inside += v[(0 * 48 + 10) * 320 + x] != 0.0f;
    CHECK(inside > 90);
    for (int x = 96; x < 320; ++x) CHECK(v[(1 * 48 + 20) * 320 + x] == 0.0f);
    for (float f : v) CHECK((f >= -1.0f && f <= 1.0f));
}

TEST_CASE("read_model_config: PaddleDetection and PaddleX layouts, labels, threshold") {
    auto det = nlohmann::json::parse(R"({"draw_threshold": 0.4, "label_list": ["a", "b"],
        "Preprocess": [{"type": "Resize", "interp": 2, "keep_ratio": false, "target_size": [320, 320]},
                       {"type": "NormalizeImage", "is_scale": true, "mean": [0.485, 0.456, 0.406],
                        "std": [0.229, 0.224, 0.225]}, {"type": "Permute"}]})");
    auto m = read_model_config(det);
    CHECK(m.kind == "detection");
    CHECK(m.preprocess.steps.size() == 3);
    CHECK(m.preprocess.order == channel_order::rgb);
    CHECK(std::get<resize_step>(m.preprocess.steps[0]).interp == interpolation::cubic);
    CHECK(m.labels == std::vector<std::string>{"a", "b"});
    CHECK(m.draw_threshold == doctest::Approx(0.4));

    auto ocr = nlohmann::json::parse(R"({"PreProcess": {"transform_ops": [
        {"DecodeImage": {"channel_first": false, "img_mode": "BGR"}}, {"DetLabelEncode": null},
        {"DetResizeForTest": {"resize_long": 960}},
        {"NormalizeImage": {"mean": [0.485, 0.456, 0.406], "order": "hwc", "scale": "1./255.",
                            "std": [0.229, 0.224, 0.225]}},
        {"ToCHWImage": null}, {"KeepKeys": {"keep_keys": ["image"]}}]},
        "PostProcess": {"Topk": {"topk": 1, "label_list": ["0_degree", "180_degree"]}}})");
    auto o = read_model_config(ocr);
    CHECK(o.kind == "paddlex");
    CHECK(o.preprocess.order == channel_order::bgr);
    CHECK(o.preprocess.steps.size() ==
          3);  // the label encoder and KeepKeys do nothing at inference
    CHECK(std::get<normalize_step>(o.preprocess.steps[1]).scale == doctest::Approx(1.0 / 255));
    CHECK(o.labels == std::vector<std::string>{"0_degree", "180_degree"});
}

TEST_CASE(
    "read_model_config: an unknown step, a bad option and a bad layout are errors naming them") {
    CHECK_THROWS_WITH_AS(
        read_model_config(nlohmann::json::parse(R"({"Preprocess": [{"type": "Mosaic"}]})")),
        doctest::Contains("unknown preprocess op 'Mosaic'"), usage_error);
    CHECK_THROWS_WITH_AS(
        read_model_config(
            nlohmann::json::parse(R"({"PreProcess": {"transform_ops": [{"WarpAffine": {}}]}})")),
        doctest::Contains("PreProcess.transform_ops[0]: unknown preprocess op 'WarpAffine'"),
        usage_error);
    CHECK_THROWS_WITH_AS(
        read_model_config(nlohmann::json::parse(
            R"({"Preprocess": [{"type": "Resize", "target_size": [320, "wide"]}]})")),
        doctest::Contains("Preprocess[0].target_size"), usage_error);
    CHECK_THROWS_WITH_AS(
        read_model_config(nlohmann::json::parse(
            R"({"Preprocess": [{"type": "Resize", "interp": 4, "target_size": 320}]})")),
        doctest::Contains("interpolation 4"), usage_error);
    CHECK_THROWS_WITH_AS(read_model_config(nlohmann::json::parse(R"({"model": 1})")),
                         doctest::Contains("neither Preprocess"), usage_error);
}
