// kernels::pool2d / pool2d_planes (kernels/pool.hpp) against the plain
// element-by-element loop the kernel had before its row form: bit-identical
// for every window (max and average; global averages sum each plane in order,
// as runtime/patches.hpp's banded global pool does), and the same for any split
// of the planes.
#include "litegraph/kernels/pool.hpp"

#include <doctest/doctest.h>

#include "random_vec.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace litegraph;
using kernel_test::random_vec;

namespace {

kernels::pool_geometry make(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w,
                            std::int64_t kh, std::int64_t kw, std::int64_t sh, std::int64_t sw,
                            std::int64_t pt, std::int64_t pl, bool ceil) {
    kernels::pool_geometry g{n, c, h, w, kh, kw, sh, sw, pt, pl, pt, pl, 0, 0};
    auto out = [&](std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p) {
        return (in + 2 * p - k + (ceil ? s - 1 : 0)) / s + 1;
    };
    g.oh = out(h, kh, sh, pt);
    g.ow = out(w, kw, sw, pl);
    return g;
}

/// The element loop (the kernel before its row form).
std::vector<float> plain(const kernels::pool_mode& p, const kernels::pool_geometry& g,
                         const std::vector<float>& x) {
    std::vector<float> y(static_cast<std::size_t>(g.n * g.c * g.oh * g.ow));
    for (std::int64_t pc = 0; pc < g.n * g.c; ++pc)
        for (std::int64_t oh = 0; oh < g.oh; ++oh)
            for (std::int64_t ow = 0; ow < g.ow; ++ow) {
                const auto r = kernels::pool_span_of(p, oh, g.oh, g.h, g.kh, g.sh, g.pt);
                const auto c = kernels::pool_span_of(p, ow, g.ow, g.w, g.kw, g.sw, g.pl);
                float m = p.max ? -FLT_MAX : 0.f;
                for (std::int64_t ih = r.lo; ih < r.hi; ++ih)
                    for (std::int64_t iw = c.lo; iw < c.hi; ++iw) {
                        const float v = x[static_cast<std::size_t>((pc * g.h + ih) * g.w + iw)];
                        m = p.max ? (m > v ? m : v) : m + v;
                    }
                if (!p.max) m = m / static_cast<float>(r.extent * c.extent);
                y[static_cast<std::size_t>((pc * g.oh + oh) * g.ow + ow)] = m;
            }
    return y;
}

std::vector<float> run(const kernels::pool_mode& p, const kernels::pool_geometry& g,
                       const std::vector<float>& x) {
    std::vector<float> y(static_cast<std::size_t>(g.n * g.c * g.oh * g.ow), NAN);
    std::vector<kernels::pool_span> scratch(static_cast<std::size_t>(g.oh + g.ow));
    kernels::pool2d(p, g, x.data(), y.data(), scratch.data());
    return y;
}

int differing_bits(const std::vector<float>& a, const std::vector<float>& b) {
    int d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
    return d;
}

}  // namespace

TEST_CASE("fixed-window max and average pooling equal the element loop bit for bit") {
    std::mt19937 rng(7);
    auto pick = [&](std::int64_t lo, std::int64_t hi) {
        return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    int done = 0;
    while (done < 200) {
        const std::int64_t kh = pick(1, 4), kw = pick(1, 4);
        const auto g = make(pick(1, 2), pick(1, 5), pick(1, 17), pick(1, 40), kh, kw, pick(1, 3),
                            pick(1, 3), pick(0, kh - 1), pick(0, kw - 1), pick(0, 1) == 1);
        if (g.oh < 1 || g.ow < 1) continue;
        const kernels::pool_mode p{pick(0, 1) == 1, pick(0, 1) == 1, false};
        const auto x = random_vec(g.n * g.c * g.h * g.w, static_cast<std::uint32_t>(done));
        INFO("h ", g.h, " w ", g.w, " k ", kh, "x", kw, " s ", g.sh, ",", g.sw, " p ", g.pt, ",",
             g.pl, " max ", p.max, " exclusive ", p.exclusive);
        const auto c0 = kernels::pool_span_of(p, 0, g.ow, g.w, g.kw, g.sw, g.pl);
        const bool whole_rows = !p.max && g.ow == 1 && c0.lo == 0 && c0.hi == g.w;
        const auto y = run(p, g, x), want = plain(p, g, x);
        CAPTURE(whole_rows);  // the contiguous sum of the global pools
        CHECK(differing_bits(y, want) == 0);
        ++done;
    }
    // The classifier's last pool: max 2x2 stride 2.
    const auto g = make(8, 200, 2, 96, 2, 2, 2, 2, 0, 0, false);
    const auto x = random_vec(g.n * g.c * g.h * g.w, 3);
    CHECK(differing_bits(run({true, true, false}, g, x), plain({true, true, false}, g, x)) == 0);
}

TEST_CASE("global and adaptive averages equal the element loop; plane splits change nothing") {
    // Sixteen planes or more go through the vector lanes (a plane of 21
    // values: five vectors and a tail of one); fewer through the scalar sums.
    for (const auto& g :
         {make(8, 200, 2, 96, 2, 96, 1, 1, 0, 0, false), make(2, 19, 3, 7, 3, 7, 1, 1, 0, 0, false),
          make(2, 7, 13, 29, 13, 29, 1, 1, 0, 0, false),
          make(1, 3, 1, 5, 1, 5, 1, 1, 0, 0, false)}) {
        const kernels::pool_mode p{false, true, false};
        const auto x = random_vec(g.n * g.c * g.h * g.w, 5);
        const auto y = run(p, g, x), want = plain(p, g, x);
        CHECK(differing_bits(y, want) == 0);
        // Planes in uneven ranges, last range first.
        std::vector<float> split(y.size(), NAN);
        std::vector<kernels::pool_span> spans(static_cast<std::size_t>(g.oh + g.ow));
        kernels::pool_detail::spans(p, g, spans.data());
        const std::int64_t planes = g.n * g.c;
        for (std::int64_t hi = planes, len = 1; hi > 0; hi -= len++)
            kernels::pool2d_planes(p, g, x.data(), split.data(), spans.data(),
                                   std::max<std::int64_t>(0, hi - len), hi);
        CHECK(differing_bits(split, y) == 0);
    }
    // Adaptive pooling keeps the element loop.
    const auto g = make(1, 3, 10, 14, 1, 1, 1, 1, 0, 0, false);
    auto a = g;
    a.oh = 3, a.ow = 4;
    const kernels::pool_mode p{false, true, true};
    const auto x = random_vec(g.n * g.c * g.h * g.w, 9);
    CHECK(differing_bits(run(p, a, x), plain(p, a, x)) == 0);
}

namespace {
/// The int8 element loop (kernels::pool2d_int8 before its separable max form).
std::vector<std::int8_t> plain_int8(const kernels::pool_mode& p, const kernels::pool_geometry& g,
                                    const std::vector<std::int8_t>& x) {
    std::vector<std::int8_t> y(static_cast<std::size_t>(g.n * g.c * g.oh * g.ow));
    for (std::int64_t pc = 0; pc < g.n * g.c; ++pc)
        for (std::int64_t oh = 0; oh < g.oh; ++oh)
            for (std::int64_t ow = 0; ow < g.ow; ++ow) {
                const auto r = kernels::pool_span_of(p, oh, g.oh, g.h, g.kh, g.sh, g.pt);
                const auto c = kernels::pool_span_of(p, ow, g.ow, g.w, g.kw, g.sw, g.pl);
                std::int32_t m = p.max ? -128 : 0;
                for (std::int64_t ih = r.lo; ih < r.hi; ++ih)
                    for (std::int64_t iw = c.lo; iw < c.hi; ++iw) {
                        const std::int32_t v =
                            x[static_cast<std::size_t>((pc * g.h + ih) * g.w + iw)];
                        m = p.max ? std::max(m, v) : m + v;
                    }
                if (!p.max) {
                    const auto count = static_cast<std::int32_t>(r.extent * c.extent);
                    m = count > 0 ? kernels::pool_detail::div_round(m, count) : 0;
                }
                y[static_cast<std::size_t>((pc * g.oh + oh) * g.ow + ow)] =
                    static_cast<std::int8_t>(m);
            }
    return y;
}
}  // namespace

TEST_CASE("int8 max and average pooling equal the element loop (the separable max rows)") {
    std::mt19937 rng(11);
    auto r = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (int t = 0; t < 60; ++t) {
        const std::int64_t kh = r(1, 4), kw = r(1, 4), sh = r(1, 3), sw = r(1, 3);
        const std::int64_t pt = r(0, kh - 1), pl = r(0, kw - 1);
        // Widths across the 256-byte row buffer (wider ones take the element loop).
        const std::int64_t w = t % 5 == 4 ? r(250, 300) : r(kw, 60), h = r(kh, 20);
        const auto g = make(r(1, 2), r(1, 4), h, w, kh, kw, sh, sw, pt, pl, t % 3 == 0);
        for (const bool max : {true, false}) {
            kernels::pool_mode p;
            p.max = max;
            p.exclusive = t % 2 == 0;
            p.adaptive = t % 7 == 6;
            INFO("t " << t << " max " << max << " w " << w);
            std::vector<std::int8_t> x(static_cast<std::size_t>(g.n * g.c * g.h * g.w));
            for (auto& v : x) v = static_cast<std::int8_t>(r(-128, 127));
            std::vector<std::int8_t> y(static_cast<std::size_t>(g.n * g.c * g.oh * g.ow), 0);
            std::vector<kernels::pool_span> scratch(static_cast<std::size_t>(g.oh + g.ow));
            kernels::pool2d_int8(p, g, x.data(), y.data(), scratch.data());
            CHECK(y == plain_int8(p, g, x));
        }
    }
}
