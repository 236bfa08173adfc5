// Segmentation post-processing (vision/segmentation.hpp) against plain code
// written here: the label map from scores and from an exported argmax, taken
// back to the picture, the pixel counts, PaddleSeg's palette and the overlay;
// and PaddleSeg's deploy.yaml read into a preprocessing pipeline, with the
// errors it must give.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "litegraph/vision/config.hpp"
#include "litegraph/vision/preprocess.hpp"
#include "litegraph/vision/segmentation.hpp"
#include "support.hpp"

using namespace litegraph;
using namespace litegraph::vision;

TEST_CASE("segmentation: the label map of scores is their argmax over the channels") {
    const std::int64_t n = 2, c = 5, h = 7, w = 9;
    auto t = test::random_tensor({n, c, h, w}, 11);
    auto v = t.span<float>();
    // A tie: the first class wins, as numpy's argmax.
    for (std::int64_t k = 0; k < c; ++k)
        v[static_cast<std::size_t>(((1 * c + k) * h + 3) * w + 4)] = 2.f;
    for (std::size_t img = 0; img < 2; ++img) {
        auto m = labels_of(t.ref(), img);
        REQUIRE(m.width == w);
        REQUIRE(m.height == h);
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                int best = 0;
                for (int k = 1; k < c; ++k)
                    if (v[static_cast<std::size_t>(((std::int64_t(img) * c + k) * h + y) * w + x)] >
                        v[static_cast<std::size_t>(((std::int64_t(img) * c + best) * h + y) * w +
                                                   x)])
                        best = k;
                CHECK(m.at(int(x), int(y)) == best);
            }
    }
    CHECK(labels_of(t.ref(), 1).at(4, 3) == 0);
}

TEST_CASE("segmentation: labels of an exported argmax, int32 [N, 1, H, W] and int64 [N, H, W]") {
    tensor a(dtype::i32, {2, 1, 3, 4});
    tensor b(dtype::i64, {2, 3, 4});
    for (std::size_t i = 0; i < 24; ++i) {
        a.span<std::int32_t>()[i] = static_cast<std::int32_t>((i * 7) % 19);
        b.span<std::int64_t>()[i] = static_cast<std::int64_t>((i * 7) % 19);
    }
    for (std::size_t img = 0; img < 2; ++img) {
        auto ma = labels_of(a.ref(), img), mb = labels_of(b.ref(), img);
        REQUIRE(ma.labels.size() == 12);
        for (std::size_t i = 0; i < 12; ++i) {
            CHECK(ma.labels[i] == std::int32_t(((img * 12 + i) * 7) % 19));
            CHECK(mb.labels[i] == ma.labels[i]);
        }
    }
    b.span<std::int64_t>()[5] = -1;
    CHECK_THROWS_WITH_AS(labels_of(b.ref(), 0), doctest::Contains("label -1"), usage_error);
    tensor boxes(dtype::f32, {3, 6});
    CHECK_THROWS_WITH_AS(labels_of(boxes.ref(), 0), doctest::Contains("neither labels"),
                         usage_error);
    CHECK_FALSE(is_segmentation_output(boxes.ref()));
}

TEST_CASE("segmentation: back to the picture, the padding cut off, nearest neighbours") {
    // A 10 x 8 input whose top-left 7 x 5 is the resized picture (the rest is
    // Padding), back to a 23 x 13 picture; and a map of half the input's size.
    label_map m;
    m.width = 10, m.height = 8;
    for (int i = 0; i < 80; ++i) m.labels.push_back(i);
    auto r = to_picture(m, 10, 8, 7, 5, 23, 13);
    REQUIRE(r.width == 23);
    REQUIRE(r.height == 13);
    for (int y = 0; y < 13; ++y)
        for (int x = 0; x < 23; ++x) {
            // cv2.resize(label[:5, :7], (23, 13), INTER_NEAREST): floor(x * 7 / 23).
            const int sx = (x * 7) / 23, sy = (y * 5) / 13;
            CHECK(r.at(x, y) == sy * 10 + sx);
        }
    label_map half;
    half.width = 5, half.height = 4;
    for (int i = 0; i < 20; ++i) half.labels.push_back(i);
    auto q = to_picture(half, 10, 8, 10, 8, 20, 16);
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 20; ++x) CHECK(q.at(x, y) == (y / 4) * 5 + x / 4);
}

TEST_CASE("segmentation: pixel counts sum to the picture, palette and overlay") {
    label_map m;
    m.width = 6, m.height = 4;
    std::vector<std::int64_t> expected(4, 0);
    for (int i = 0; i < 24; ++i) {
        const int l = (i * i) % 4;
        m.labels.push_back(l);
        ++expected[static_cast<std::size_t>(l)];
    }
    auto counts = pixel_counts(m);
    std::int64_t sum = 0;
    for (auto [label, k] : counts) {
        CHECK(k == expected[static_cast<std::size_t>(label)]);
        sum += k;
    }
    CHECK(sum == 24);
    // PaddleSeg's get_color_map_list: the VOC palette from its second colour.
    using rgb = std::array<std::uint8_t, 3>;
    CHECK(label_colour(0) == rgb{128, 0, 0});
    CHECK(label_colour(1) == rgb{0, 128, 0});
    CHECK(label_colour(2) == rgb{128, 128, 0});
    CHECK(label_colour(6) == rgb{128, 128, 128});
    CHECK(label_colour(7) == rgb{64, 0, 0});
    CHECK(label_colour(14) == rgb{192, 128, 128});  // VOC 15, person
    // The overlay: picture * 0.6 + colour * 0.4, rounded.
    std::vector<std::uint8_t> px(6 * 4 * 3);
    for (std::size_t i = 0; i < px.size(); ++i) px[i] = static_cast<std::uint8_t>(i * 11 % 256);
    auto img = image::from_pixels(px.data(), 6, 4, 3);
    auto o = overlay(img, m);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 6; ++x)
            for (int c = 0; c < 3; ++c)
                CHECK(o.at(x, y, c) ==
                      std::round(img.at(x, y, c) * 0.6f + label_colour(m.at(x, y))[c] * 0.4f));
    CHECK_THROWS_AS(overlay(image(5, 4), m), usage_error);
}

TEST_CASE("deploy.yaml: Resize [w, h], Padding, Normalize (0.5), RGB; unknown transforms named") {
    nlohmann::json cfg = {{"Deploy",
                           {{"model", "model.pdmodel"},
                            {"output_op", "argmax"},
                            {"transforms",
                             {{{"type", "Resize"}, {"target_size", {12, 8}}},
                              {{"type", "Padding"}, {"target_size", {16, 10}}},
                              {{"type", "Normalize"}}}}}}};
    auto m = read_model_config(cfg);
    CHECK(m.kind == "segmentation");
    CHECK(m.preprocess.order == channel_order::rgb);
    REQUIRE(m.preprocess.steps.size() == 3);
    std::mt19937 rng(3);
    std::vector<std::uint8_t> px(30 * 20 * 3);
    for (auto& p : px) p = static_cast<std::uint8_t>(rng() % 256);
    auto img = image::from_pixels(px.data(), 30, 20, 3);
    auto r = preprocess(img, m.preprocess);
    REQUIRE(r.input.shape() == shape_t{1, 3, 10, 16});
    CHECK(r.im_shape[0] == 8.f);  // the content before Padding: 12 x 8
    CHECK(r.im_shape[1] == 12.f);
    auto resized = resize(img, 12, 8, interpolation::linear);
    auto v = r.input.span<float>();
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < 10; ++y)
            for (int x = 0; x < 16; ++x) {
                const double pixel = x < 12 && y < 8 ? resized.at(x, y, c) : 127.5;
                CHECK(v[static_cast<std::size_t>((c * 10 + y) * 16 + x)] ==
                      doctest::Approx((pixel / 255.0 - 0.5) / 0.5).epsilon(1e-5));
            }
    // ResizeByLong / ResizeByShort: the long / short side to the size, rounded.
    nlohmann::json by_long = {
        {"Deploy",
         {{"transforms",
           {{{"type", "ResizeByLong"}, {"long_size", 15}},
            {{"type", "Normalize"}, {"mean", {0.1, 0.2, 0.3}}, {"std", {0.4, 0.5, 0.6}}}}}}}};
    CHECK(preprocess(img, read_model_config(by_long).preprocess).input.shape() ==
          shape_t{1, 3, 10, 15});
    nlohmann::json by_short = {
        {"Deploy", {{"transforms", {{{"type", "ResizeByShort"}, {"short_size", 7}}}}}}};
    CHECK(preprocess(img, read_model_config(by_short).preprocess).input.shape() ==
          shape_t{1, 3, 7, 10});  // 30 * 7 / 20 = 10.5, rounded half to even
    // Errors name the step.
    nlohmann::json unknown = {
        {"Deploy", {{"transforms", {{{"type", "Normalize"}}, {{"type", "RandomBlur"}}}}}}};
    CHECK_THROWS_WITH_AS(read_model_config(unknown),
                         doctest::Contains("Deploy.transforms[1]: unknown PaddleSeg transform "
                                           "'RandomBlur'"),
                         usage_error);
    nlohmann::json bad_interp = {
        {"Deploy",
         {{"transforms", {{{"type", "Resize"}, {"target_size", {4, 4}}, {"interp", "AREA"}}}}}}};
    CHECK_THROWS_WITH_AS(read_model_config(bad_interp), doctest::Contains("interp 'AREA'"),
                         usage_error);
    nlohmann::json no_list = {{"Deploy", {{"model", "model.pdmodel"}}}};
    CHECK_THROWS_WITH_AS(read_model_config(no_list),
                         doctest::Contains("Deploy.transforms is not a list"), usage_error);
}
