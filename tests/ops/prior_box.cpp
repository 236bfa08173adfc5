// prior_box and density_prior_box against plain loops written from Paddle's
// formulas: several feature/image sizes, steps given or derived, flip,
// clip, max sizes, both prior orders, flatten_to_2d; a hand-checked SSD cell;
// bad attributes are named.
#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_prior_box_test {

namespace {
named_tensors maps(std::int64_t fh, std::int64_t fw, std::int64_t ih, std::int64_t iw) {
    return named_tensors{}
        .add("Input", tensor(dtype::f32, {1, 2, fh, fw}))
        .add("Image", tensor(dtype::f32, {1, 3, ih, iw}));
}

struct prior_case {
    std::vector<float> min_sizes, max_sizes, ratios;
    bool flip = false, clip = false, order = false;
    float step_w = 0, step_h = 0, offset = 0.5f;
};

// The (half width, half height) of each prior of a cell, in output order.
std::vector<std::pair<float, float>> halves(const prior_case& c) {
    std::vector<float> ars{1.f};
    for (float r : c.ratios) {
        bool dup = false;
        for (float e : ars) dup = dup || std::fabs(double(r) - e) < 1e-6;
        if (dup) continue;
        ars.push_back(r);
        if (c.flip) ars.push_back(1.0f / r);
    }
    std::vector<std::pair<float, float>> v;
    for (std::size_t s = 0; s < c.min_sizes.size(); ++s) {
        const float mn = c.min_sizes[s];
        std::vector<std::pair<float, float>> by_ratio, by_max;
        for (float ar : ars) {
            if (c.order && std::fabs(ar - 1.) < 1e-6) continue;
            float w = mn * std::sqrt(ar), h = mn / std::sqrt(ar);
            by_ratio.push_back({w / 2, h / 2});
        }
        if (!c.max_sizes.empty()) {
            float q = std::sqrt(mn * c.max_sizes[s]);
            by_max.push_back({q / 2, q / 2});
        }
        if (c.order) {
            v.push_back({mn / 2, mn / 2});
            v.insert(v.end(), by_max.begin(), by_max.end());
            v.insert(v.end(), by_ratio.begin(), by_ratio.end());
        } else {
            v.insert(v.end(), by_ratio.begin(), by_ratio.end());
            v.insert(v.end(), by_max.begin(), by_max.end());
        }
    }
    return v;
}
}  // namespace

TEST_CASE("prior_box matches the baseline") {
    std::vector<prior_case> cases{
        {{30.f}, {}, {1.f}},
        {{30.f}, {60.f}, {2.f}, true},
        {{16.f, 32.f}, {24.f, 48.f}, {2.f, 3.f, 2.f}, true, true},
        {{60.f}, {111.f}, {2.f, 0.5f}, false, false, true},
        {{8.f}, {}, {1.5f, 1.0f}, true, true, true, 8.f, 16.f, 0.25f},
    };
    const std::vector<float> vars{0.1f, 0.1f, 0.2f, 0.2f};
    for (std::size_t ci = 0; ci < cases.size(); ++ci)
        for (const auto& sizes : std::vector<std::array<std::int64_t, 4>>{
                 {1, 1, 300, 300}, {3, 5, 96, 160}, {4, 3, 33, 17}}) {
            const std::int64_t fh = sizes[0], fw = sizes[1], ih = sizes[2], iw = sizes[3];
            const auto& c = cases[ci];
            CAPTURE(ci);
            CAPTURE(fh);
            CAPTURE(fw);
            attr_map a;
            a.set("min_sizes", c.min_sizes);
            a.set("max_sizes", c.max_sizes);
            a.set("aspect_ratios", c.ratios);
            a.set("variances", vars);
            a.set("flip", c.flip);
            a.set("clip", c.clip);
            a.set("step_w", c.step_w);
            a.set("step_h", c.step_h);
            a.set("offset", c.offset);
            a.set("min_max_aspect_ratios_order", c.order);
            auto r = invoke("prior_box", a, maps(fh, fw, ih, iw), {{"Boxes", 1}, {"Variances", 1}});
            const auto hv = halves(c);
            const auto np = static_cast<std::int64_t>(hv.size());
            REQUIRE(r.get("Boxes").shape() == shape_t{fh, fw, np, 4});
            REQUIRE(r.get("Variances").shape() == shape_t{fh, fw, np, 4});
            const float sw = c.step_w == 0 || c.step_h == 0 ? float(iw) / float(fw) : c.step_w;
            const float sh = c.step_w == 0 || c.step_h == 0 ? float(ih) / float(fh) : c.step_h;
            std::vector<float> expect, var;
            for (std::int64_t h = 0; h < fh; ++h)
                for (std::int64_t w = 0; w < fw; ++w)
                    for (auto [bw, bh] : hv) {
                        const float cx = (float(w) + c.offset) * sw,
                                    cy = (float(h) + c.offset) * sh;
                        for (float v : {(cx - bw) / float(iw), (cy - bh) / float(ih),
                                        (cx + bw) / float(iw), (cy + bh) / float(ih)})
                            expect.push_back(c.clip ? std::min(std::max(v, 0.f), 1.f) : v);
                        var.insert(var.end(), vars.begin(), vars.end());
                    }
            CHECK(test::max_abs_diff(r.get("Boxes").span<float>(), expect) == 0);
            CHECK(test::max_abs_diff(r.get("Variances").span<float>(), var) == 0);
        }
}

TEST_CASE("prior_box: one SSD cell by hand") {
    // Feature 1x1 over a 300x300 image: centre 150; min 30 -> [135, 165]/300;
    // sqrt(30*60) = 42.43 -> [128.79, 171.21]/300; ratio 2 -> 42.43 x 21.21.
    attr_map a;
    a.set("min_sizes", std::vector<float>{30.f});
    a.set("max_sizes", std::vector<float>{60.f});
    a.set("aspect_ratios", std::vector<float>{2.f});
    a.set("variances", std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f});
    a.set("flip", false);
    a.set("clip", false);
    a.set("min_max_aspect_ratios_order", true);
    auto r = invoke("prior_box", a, maps(1, 1, 300, 300), {{"Boxes", 1}, {"Variances", 1}});
    auto b = r.get("Boxes").span<float>();
    REQUIRE(b.size() == 12);
    CHECK(b[0] == doctest::Approx(0.45f));
    CHECK(b[2] == doctest::Approx(0.55f));
    CHECK(b[4] == doctest::Approx((150 - std::sqrt(1800.) / 2) / 300));
    CHECK(b[8] == doctest::Approx((150 - 30 * std::sqrt(2.) / 2) / 300));
    CHECK(b[9] == doctest::Approx((150 - 30 / std::sqrt(2.) / 2) / 300));
}

TEST_CASE("prior_box: flip and clip default to true, as in Paddle") {
    attr_map a;
    a.set("min_sizes", std::vector<float>{40.f});
    a.set("aspect_ratios", std::vector<float>{2.f});
    a.set("variances", std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f});
    auto r = invoke("prior_box", a, maps(2, 2, 40, 40), {{"Boxes", 1}, {"Variances", 1}});
    REQUIRE(r.get("Boxes").shape() == shape_t{2, 2, 3, 4});  // ratios 1, 2, 1/2
    float lo = 1, hi = 0;
    for (float v : r.get("Boxes").span<float>()) lo = std::min(lo, v), hi = std::max(hi, v);
    CHECK(lo == 0.f);  // the 40-pixel boxes stick out of the 40x40 image: clipped
    CHECK(hi == 1.f);
}

TEST_CASE("density_prior_box matches the baseline") {
    struct dcase {
        std::vector<float> sizes, ratios;
        std::vector<std::int64_t> densities;
        bool clip;
        float step;
    };
    for (const auto& c : std::vector<dcase>{{{32.f}, {1.f}, {4}, false, 0.f},
                                            {{32.f, 64.f, 128.f}, {1.f}, {4, 2, 1}, true, 0.f},
                                            {{16.f, 40.f}, {1.f, 2.f, 0.5f}, {2, 3}, false, 8.f}})
        for (bool flatten : {false, true})
            for (const auto& [fh, fw, ih, iw] :
                 std::vector<std::array<std::int64_t, 4>>{{2, 2, 64, 64}, {3, 4, 100, 120}}) {
                attr_map a;
                a.set("fixed_sizes", c.sizes);
                a.set("fixed_ratios", c.ratios);
                a.set("densities", c.densities);
                a.set("variances", std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f});
                a.set("clip", c.clip);
                a.set("step_w", c.step);
                a.set("step_h", c.step);
                a.set("offset", 0.5f);
                a.set("flatten_to_2d", flatten);
                auto r = invoke("density_prior_box", a, maps(fh, fw, ih, iw),
                                {{"Boxes", 1}, {"Variances", 1}});
                std::int64_t np = 0;
                for (auto d : c.densities) np += std::int64_t(c.ratios.size()) * d * d;
                REQUIRE(r.get("Boxes").shape() ==
                        (flatten ? shape_t{fh * fw * np, 4} : shape_t{fh, fw, np, 4}));
                REQUIRE(r.get("Variances").shape() == r.get("Boxes").shape());
                const double sw = c.step > 0 ? c.step : double(float(iw) / float(fw));
                const double sh = c.step > 0 ? c.step : double(float(ih) / float(fh));
                const int avg = int((sw + sh) / 2);
                std::vector<float> expect;
                for (std::int64_t h = 0; h < fh; ++h)
                    for (std::int64_t w = 0; w < fw; ++w)
                        for (std::size_t s = 0; s < c.sizes.size(); ++s) {
                            const int d = int(c.densities[s]), shift = avg / d;
                            for (float ratio : c.ratios) {
                                const double bw = c.sizes[s] * std::sqrt(double(ratio));
                                const double bh = c.sizes[s] / std::sqrt(double(ratio));
                                for (int di = 0; di < d; ++di)
                                    for (int dj = 0; dj < d; ++dj) {
                                        const double x =
                                            (w + 0.5) * sw - avg / 2. + shift / 2. + dj * shift;
                                        const double y =
                                            (h + 0.5) * sh - avg / 2. + shift / 2. + di * shift;
                                        double v[4] = {std::max((x - bw / 2) / iw, 0.),
                                                       std::max((y - bh / 2) / ih, 0.),
                                                       std::min((x + bw / 2) / iw, 1.),
                                                       std::min((y + bh / 2) / ih, 1.)};
                                        for (double e : v)
                                            expect.push_back(
                                                float(c.clip ? std::min(std::max(e, 0.), 1.) : e));
                                    }
                            }
                        }
                CHECK(test::max_abs_diff(r.get("Boxes").span<float>(), expect) < 1e-6);
                auto vv = r.get("Variances").span<float>();
                bool ok = true;
                for (std::size_t i = 0; i < vv.size(); ++i)
                    ok = ok && vv[i] == (i % 4 < 2 ? 0.1f : 0.2f);
                CHECK(ok);
            }
}

TEST_CASE("prior_box and density_prior_box name bad attributes") {
    attr_map a;
    a.set("min_sizes", std::vector<float>{30.f});
    a.set("max_sizes", std::vector<float>{20.f});
    CHECK_THROWS_WITH_AS(invoke("prior_box", a, maps(2, 2, 8, 8), {{"Boxes", 1}, {"Variances", 1}}),
                         doctest::Contains("max_sizes[0] must be greater than min_sizes[0]"),
                         shape_error);
    a.set("max_sizes", std::vector<float>{});
    a.set("variances", std::vector<float>{0.1f});
    CHECK_THROWS_WITH_AS(invoke("prior_box", a, maps(2, 2, 8, 8), {{"Boxes", 1}, {"Variances", 1}}),
                         doctest::Contains("variances must hold 4 values, holds 1"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("prior_box", {}, maps(2, 2, 8, 8), {{"Boxes", 1}, {"Variances", 1}}),
        doctest::Contains("min_sizes must not be empty"), shape_error);
    attr_map d;
    d.set("fixed_sizes", std::vector<float>{30.f, 60.f});
    d.set("fixed_ratios", std::vector<float>{1.f});
    d.set("densities", std::vector<std::int64_t>{2});
    CHECK_THROWS_WITH_AS(
        invoke("density_prior_box", d, maps(2, 2, 8, 8), {{"Boxes", 1}, {"Variances", 1}}),
        doctest::Contains("fixed_sizes holds 2 values, densities 1"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("prior_box", a,
                                named_tensors{}
                                    .add("Input", tensor(dtype::f32, {2, 2}))
                                    .add("Image", tensor(dtype::f32, {1, 3, 8, 8})),
                                {{"Boxes", 1}, {"Variances", 1}}),
                         doctest::Contains("Input must be 4-D"), shape_error);
}

}  // namespace ops_prior_box_test
