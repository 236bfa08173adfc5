// pool2d_int8: pool2d on int8 (Paddle's window rules, ops/pool2d.hpp), the
// output in the input's step.  Max takes the largest q (quantisation is
// monotonic, so it equals quantising the float max); average sums in int32
// and divides rounding half away from zero.  Slots X int8 -> Out int8.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "litegraph/ops/int8/quantize.hpp"
#include "litegraph/ops/pool2d.hpp"

namespace litegraph::ops {

namespace int8_detail {
/// sum / count rounded half away from zero (count > 0).
constexpr std::int32_t div_round(std::int32_t sum, std::int32_t count) noexcept {
    return sum >= 0 ? (2 * sum + count) / (2 * count) : -((-2 * sum + count) / (2 * count));
}
}  // namespace int8_detail

struct pool2d_int8 {
    static constexpr std::string_view paddle_types[] = {"pool2d_int8"};
    using params = pool2d::params;
    static params parse(const attr_map& a, std::string_view t) { return pool2d::parse(a, t); }

    static void infer(const params& p, op_io& io) {
        const auto g = pool2d::resolve(p, io, dtype::i8);
        auto& out = io.output("Out");
        out.type = dtype::i8;
        out.shape = {g.n, g.c, g.oh, g.ow};
    }

    static void run(const params& p, op_io& io) {
        const auto g = pool2d::resolve(p, io, dtype::i8);
        std::vector<pool2d::span1> spans(static_cast<std::size_t>(g.oh + g.ow));
        compute(pool2d::mode_of(p), g, io.input("X").as<std::int8_t>(),
                io.output("Out").as<std::int8_t>(), spans.data());
    }

    /// The kernel without the heap (firmware): `scratch` holds oh + ow spans
    /// (pool2d::scratch_bytes).
    static void compute(const pool2d::mode& p, const pool2d::geometry& g, const std::int8_t* x,
                        std::int8_t* y, pool2d::span1* scratch) noexcept {
        pool2d::span1* rows = scratch;
        pool2d::span1* cols = scratch + g.oh;
        for (std::int64_t o = 0; o < g.oh; ++o)
            rows[o] = pool2d::span_of(p, o, g.oh, g.h, g.kh, g.sh, g.pt);
        for (std::int64_t o = 0; o < g.ow; ++o)
            cols[o] = pool2d::span_of(p, o, g.ow, g.w, g.kw, g.sw, g.pl);
        for (std::int64_t pc = 0; pc < g.n * g.c; ++pc) {
            const std::int8_t* xp = x + pc * g.h * g.w;
            std::int8_t* yp = y + pc * g.oh * g.ow;
            for (std::int64_t oh = 0; oh < g.oh; ++oh) {
                const auto r = rows[oh];
                for (std::int64_t ow = 0; ow < g.ow; ++ow) {
                    const auto c = cols[ow];
                    std::int32_t m = p.max ? -128 : 0;
                    for (std::int64_t ih = r.lo; ih < r.hi; ++ih)
                        for (std::int64_t iw = c.lo; iw < c.hi; ++iw) {
                            const std::int32_t v = xp[ih * g.w + iw];
                            m = p.max ? (v > m ? v : m) : m + v;
                        }
                    if (!p.max) {
                        const auto count = static_cast<std::int32_t>(r.extent * c.extent);
                        m = count > 0 ? int8_detail::div_round(m, count) : 0;
                    }
                    yp[oh * g.ow + ow] = static_cast<std::int8_t>(m);
                }
            }
        }
    }
};

}  // namespace litegraph::ops
