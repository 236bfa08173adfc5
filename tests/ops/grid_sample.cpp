// grid_sampler (PIR grid_sample) against a plain-loop baseline written from
// Paddle's description: both modes, the three padding modes, align_corners
// both ways, several shapes (1-pixel sides too), float32 and float64, grid
// points inside and outside [-1, 1]; the rounding of "nearest" (half away from
// zero, as Paddle's CPU kernel), an identity grid, and named errors.
#include <algorithm>
#include <cmath>
#include <string>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_grid_sample_test {

namespace {
struct opts {
    bool nearest = false;
    std::string padding = "zeros";
    bool align = true;
};

// A coordinate in pixels: un-normalised, then padded.  Reflection folds the
// point back into [lo, hi] one mirror at a time (not Paddle's modular form).
template <class T>
T position(T g, std::int64_t size, const opts& o) {
    const T m = static_cast<T>(size - 1);
    T v = o.align ? (g + T(1)) / T(2) * m : ((g + T(1)) * static_cast<T>(size) - T(1)) / T(2);
    if (o.padding == "border") return std::clamp(v, T(0), m);
    if (o.padding == "reflection") {
        const T lo = o.align ? T(0) : T(-0.5), hi = o.align ? m : m + T(0.5);
        if (hi == lo) return T(0);
        while (v < lo || v > hi) v = v < lo ? 2 * lo - v : 2 * hi - v;
        return std::clamp(v, T(0), m);
    }
    return v;
}

template <class T>
T pixel(const std::vector<T>& x, std::int64_t h, std::int64_t w, std::int64_t base, std::int64_t yi,
        std::int64_t xi) {
    if (yi < 0 || yi >= h || xi < 0 || xi >= w) return T(0);
    return x[static_cast<std::size_t>(base + yi * w + xi)];
}

// Plain baseline; `skip` marks nearest points within 1e-3 of a rounding tie
// (the baseline's different float steps may round them the other way).
template <class T>
std::vector<T> baseline(const std::vector<T>& x, const shape_t& xs, const std::vector<T>& g,
                        const shape_t& gs, const opts& o, std::vector<bool>& skip) {
    const auto n = xs[0], c = xs[1], h = xs[2], w = xs[3], ho = gs[1], wo = gs[2];
    std::vector<T> out(static_cast<std::size_t>(n * c * ho * wo));
    skip.assign(out.size(), false);
    for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t i = 0; i < ho; ++i)
            for (std::int64_t j = 0; j < wo; ++j) {
                const auto gi = static_cast<std::size_t>(((b * ho + i) * wo + j) * 2);
                const T px = position(g[gi], w, o), py = position(g[gi + 1], h, o);
                for (std::int64_t ch = 0; ch < c; ++ch) {
                    const auto base = (b * c + ch) * h * w;
                    const auto k = static_cast<std::size_t>(((b * c + ch) * ho + i) * wo + j);
                    if (o.nearest) {
                        auto near_tie = [](T v) {
                            return std::abs(v - std::floor(v) - T(0.5)) < T(1e-3);
                        };
                        skip[k] = near_tie(px) || near_tie(py);
                        // Half away from zero; -0.5 goes to -1 (outside).
                        auto rnd = [](T v) {
                            return static_cast<std::int64_t>(v < 0 ? -std::floor(-v + T(0.5))
                                                                   : std::floor(v + T(0.5)));
                        };
                        out[k] = pixel(x, h, w, base, rnd(py), rnd(px));
                        continue;
                    }
                    const auto x0 = static_cast<std::int64_t>(std::floor(px));
                    const auto y0 = static_cast<std::int64_t>(std::floor(py));
                    const T fx = px - static_cast<T>(x0), fy = py - static_cast<T>(y0);
                    T s = 0;
                    for (int dy = 0; dy < 2; ++dy)
                        for (int dx = 0; dx < 2; ++dx)
                            s += pixel(x, h, w, base, y0 + dy, x0 + dx) * (dx ? fx : 1 - fx) *
                                 (dy ? fy : 1 - fy);
                    out[k] = s;
                }
            }
    return out;
}

attr_map attrs(const opts& o) {
    attr_map a;
    a.set("mode", std::string(o.nearest ? "nearest" : "bilinear"));
    a.set("padding_mode", o.padding);
    a.set("align_corners", o.align);
    return a;
}

template <class T>
void check_all(std::uint32_t seed) {
    struct geometry {
        shape_t x, grid;
    };
    const std::vector<geometry> cases{
        {{2, 3, 4, 5}, {2, 3, 6, 2}}, {{1, 2, 7, 3}, {1, 5, 4, 2}},
        {{1, 1, 1, 4}, {1, 2, 3, 2}},                                // one row: max_val 0 in y
        {{2, 1, 3, 1}, {2, 4, 1, 2}},                                // one column
        {{1, 1, 1, 1}, {1, 2, 2, 2}}, {{1, 2, 3, 3}, {1, 0, 4, 2}},  // no output rows
    };
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> vals(-1.0, 1.0), pts(-1.7, 1.7);
    for (const auto& gc : cases)
        for (bool nearest : {false, true})
            for (const char* padding : {"zeros", "border", "reflection"})
                for (bool align : {true, false}) {
                    const opts o{nearest, padding, align};
                    CAPTURE(to_string(gc.x));
                    CAPTURE(to_string(gc.grid));
                    CAPTURE(nearest);
                    CAPTURE(o.padding);
                    CAPTURE(align);
                    tensor x(dtype_v<T>, gc.x), g(dtype_v<T>, gc.grid);
                    std::vector<T> xv, gv;
                    for (auto& v : x.span<T>()) xv.push_back(v = static_cast<T>(vals(rng)));
                    std::size_t i = 0;
                    for (auto& v : g.span<T>()) {
                        // Every seventh point exactly on an edge (-1 or 1).
                        v = ++i % 7 == 0 ? T(i % 2 ? 1 : -1) : static_cast<T>(pts(rng));
                        gv.push_back(v);
                    }
                    auto out = invoke("grid_sampler", attrs(o),
                                      named_tensors{}.add("X", x).add("Grid", g), {{"Output", 1}})
                                   .get("Output");
                    REQUIRE(out.type() == dtype_v<T>);
                    REQUIRE(out.shape() == shape_t{gc.x[0], gc.x[1], gc.grid[1], gc.grid[2]});
                    std::vector<bool> skip;
                    const auto want = baseline(xv, gc.x, gv, gc.grid, o, skip);
                    const auto got = out.span<T>();
                    REQUIRE(got.size() == want.size());
                    for (std::size_t k = 0; k < want.size(); ++k) {
                        if (skip[k]) continue;
                        if (nearest)
                            CHECK(got[k] == want[k]);
                        else
                            CHECK(static_cast<double>(got[k]) ==
                                  doctest::Approx(static_cast<double>(want[k])).epsilon(1e-5));
                    }
                }
}
}  // namespace

TEST_CASE("grid_sampler matches the baseline in every mode, padding and alignment") {
    check_all<float>(1);
    check_all<double>(2);
}

TEST_CASE("grid_sampler: an identity grid gives X back; nearest rounds half away from zero") {
    const std::int64_t h = 3, w = 4;
    auto x = test::random_tensor({1, 2, h, w}, 5);
    tensor g(dtype::f32, {1, h, w, 2});
    auto gs = g.span<float>();
    for (std::int64_t i = 0; i < h; ++i)
        for (std::int64_t j = 0; j < w; ++j) {
            gs[static_cast<std::size_t>((i * w + j) * 2)] =
                -1.f + 2.f * static_cast<float>(j) / 3.f;
            gs[static_cast<std::size_t>((i * w + j) * 2 + 1)] = -1.f + static_cast<float>(i);
        }
    for (bool nearest : {false, true}) {
        auto out = invoke("grid_sampler", attrs({nearest, "zeros", true}),
                          named_tensors{}.add("X", x).add("Grid", g), {{"Output", 1}})
                       .get("Output");
        for (std::size_t k = 0; k < static_cast<std::size_t>(x.numel()); ++k)
            CHECK(out.span<float>()[k] == doctest::Approx(x.span<float>()[k]).epsilon(1e-6));
    }
    // align_corners false, W = 4: x = (g + 1) * 2 - 0.5.  g = -0.5 is 0.5, which
    // rounds to 1 (half to even would give 0); g = -1 is -0.5, which rounds to
    // -1: outside, 0 with zeros padding (half to even would give column 0).
    auto row = tensor::from<float>({1, 1, 1, 4}, std::vector<float>{10, 20, 30, 40});
    auto pts = tensor::from<float>({1, 1, 2, 2}, std::vector<float>{-0.5f, 0.f, -1.f, 0.f});
    auto out = invoke("grid_sampler", attrs({true, "zeros", false}),
                      named_tensors{}.add("X", row).add("Grid", pts), {{"Output", 1}})
                   .get("Output");
    CHECK(out.span<float>()[0] == row.span<float>()[1]);
    CHECK(out.span<float>()[1] == 0.f);
    // Paddle's defaults: bilinear, zeros, align_corners true (g = 1 is the last column).
    auto last = tensor::from<float>({1, 1, 1, 2}, std::vector<float>{1.f, 0.f});
    out =
        invoke("grid_sampler", {}, named_tensors{}.add("X", row).add("Grid", last), {{"Output", 1}})
            .get("Output");
    CHECK(out.span<float>()[0] == row.span<float>()[3]);
}

TEST_CASE("grid_sampler: bad input is named") {
    auto x = test::random_tensor({1, 2, 3, 4}, 1);
    auto g = test::random_tensor({1, 2, 2, 2}, 2);
    auto run = [](const attr_map& a, const tensor& xx, const tensor& gg) {
        return invoke("grid_sampler", a, named_tensors{}.add("X", xx).add("Grid", gg),
                      {{"Output", 1}});
    };
    attr_map a;
    a.set("mode", std::string("bicubic"));
    CHECK_THROWS_WITH_AS(run(a, x, g), doctest::Contains("mode 'bicubic' is not supported"),
                         unsupported_error);
    a = {};
    a.set("padding_mode", std::string("wrap"));
    CHECK_THROWS_WITH_AS(run(a, x, g), doctest::Contains("padding_mode 'wrap' is not supported"),
                         unsupported_error);
    CHECK_THROWS_WITH_AS(run({}, test::random_tensor({2, 3, 4}, 3), g),
                         doctest::Contains("X must be 4-D"), shape_error);
    CHECK_THROWS_WITH_AS(
        run({}, test::random_tensor({1, 2, 3, 4, 5}, 3), test::random_tensor({1, 2, 2, 2, 3}, 4)),
        doctest::Contains("volumetric"), shape_error);
    CHECK_THROWS_WITH_AS(run({}, x, test::random_tensor({1, 2, 2, 3}, 5)),
                         doctest::Contains("Grid must be N x Hout x Wout x 2"), shape_error);
    CHECK_THROWS_WITH_AS(run({}, x, test::random_tensor({2, 2, 2, 2}, 6)),
                         doctest::Contains("Grid's batch 2 is not X's 1"), shape_error);
    tensor xi(dtype::i32, {1, 2, 3, 4});
    CHECK_THROWS_WITH_AS(run({}, xi, g), doctest::Contains("X must be float32 or float64"),
                         shape_error);
    tensor gd(dtype::f64, {1, 2, 2, 2});
    CHECK_THROWS_WITH_AS(run({}, x, gd), doctest::Contains("Grid is float64 but X is float32"),
                         shape_error);
}

}  // namespace ops_grid_sample_test
