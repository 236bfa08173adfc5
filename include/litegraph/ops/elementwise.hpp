// elementwise_add/sub/mul/div/max/min/pow/floordiv/mod: Out = X (op) Y with Paddle's
// broadcasting.  Y's dims are aligned to X's starting at `axis` (axis = -1:
// trailing alignment); either side may broadcast a dim of 1 (Paddle 2.x), and
// when Y has more dims than X the roles swap (X is aligned into Y at `axis`).
//
// The per-element functions are small functor types (`ops::bin::add`, ...)
// kept apart from the loop, so that fused kernels can apply them as epilogues.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "litegraph/kernels/elementwise.hpp"
#include "litegraph/ops/firmware.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

namespace bin {
/// `a op b` for floats; for signed integers computed in the unsigned type,
/// so that an overflow wraps (two's complement, what Paddle's CPU kernels
/// give in practice) instead of being undefined.
template <class T, class Op>
T wrapping(T a, T b, Op op) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && !std::is_same_v<T, bool>) {
        // At least unsigned int: smaller types would be promoted to (signed) int.
        using U = std::make_unsigned_t<std::common_type_t<T, int>>;
        return static_cast<T>(static_cast<U>(op(static_cast<U>(a), static_cast<U>(b))));
    } else {
        return static_cast<T>(op(a, b));
    }
}
struct add {
    template <class T>
    T operator()(T a, T b) const {
        return wrapping(a, b, [](auto x, auto y) { return x + y; });
    }
};
struct sub {
    template <class T>
    T operator()(T a, T b) const {
        return wrapping(a, b, [](auto x, auto y) { return x - y; });
    }
};
struct mul {
    template <class T>
    T operator()(T a, T b) const {
        return wrapping(a, b, [](auto x, auto y) { return x * y; });
    }
};
/// Integer division truncates toward zero (C semantics, as Paddle).  The
/// caller rules out b == 0 for integers; INT_MIN / -1 wraps to INT_MIN
/// instead of being undefined.
struct div {
    template <class T>
    T operator()(T a, T b) const {
        if constexpr (std::is_integral_v<T>) {
            if (b == T(-1)) return static_cast<T>(T(0) - static_cast<std::make_unsigned_t<T>>(a));
        }
        return a / b;
    }
};
struct max {
    template <class T>
    T operator()(T a, T b) const {
        return a > b ? a : b;
    }
};
struct min {
    template <class T>
    T operator()(T a, T b) const {
        return a < b ? a : b;
    }
};
/// Integers: std::pow in double, truncated to T (Paddle's CPU functor).
struct pow {
    template <class T>
    T operator()(T a, T b) const {
        if constexpr (std::is_integral_v<T>) {
            double r = std::pow(static_cast<double>(a), static_cast<double>(b));
            if (!(r >= static_cast<double>(std::numeric_limits<T>::min()) &&
                  r < -static_cast<double>(std::numeric_limits<T>::min())))
                return std::numeric_limits<T>::min();
            return static_cast<T>(r);
        } else {
            return std::pow(a, b);
        }
    }
};
/// Floor division, as Python and Paddle's FloorDivideFunctor: integers round
/// toward minus infinity (the caller rules out b == 0; INT_MIN // -1 wraps);
/// floats are floor((a - fmod(a, b)) / b) corrected as Paddle does (IEEE
/// result when b == 0).
struct floordiv {
    template <class T>
    T operator()(T a, T b) const {
        if constexpr (std::is_integral_v<T>) {
            if (b == T(-1)) return static_cast<T>(T(0) - static_cast<std::make_unsigned_t<T>>(a));
            const T q = static_cast<T>(a / b), r = static_cast<T>(a % b);
            return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
        } else {
            if (b == T(0)) return a / b;
            const T m = std::fmod(a, b);
            T d = (a - m) / b;
            if (m != 0 && (b < 0) != (m < 0)) d -= T(1);
            if (d == 0) return std::copysign(T(0), a / b);
            T f = std::floor(d);
            if (d - f > T(0.5)) f += T(1);
            return f;
        }
    }
};
/// Remainder with the sign of the divisor (Python's %, Paddle's
/// RemainderFunctor): integers a % b (the caller rules out b == 0; b == -1
/// gives 0), floats fmod, each moved by b when its sign differs from b's.
struct mod {
    template <class T>
    T operator()(T a, T b) const {
        if constexpr (std::is_integral_v<T>) {
            if (b == T(-1)) return T(0);
            T r = static_cast<T>(a % b);
            if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
            return r;
        } else {
            T r = std::fmod(a, b);
            if (r != 0 && ((r < 0) != (b < 0))) r += b;
            return r;
        }
    }
};
}  // namespace bin

/// Paddle's broadcast of two shapes (phi GetBroadcastDimsArrays): the lower-rank
/// operand is placed at `axis` (-1: trailing) inside the higher-rank one and
/// padded with 1s.  Returns the aligned dims of x and y and the output dims;
/// -1 (unknown) dims stay unknown unless the other side fixes them.
struct broadcast_dims {
    shape_t x, y, out;
};

inline broadcast_dims paddle_broadcast(const shape_t& xd, const shape_t& yd, int axis,
                                       const op_io& io) {
    broadcast_dims r;
    const std::size_t nx = xd.size(), ny = yd.size();
    const std::size_t n = std::max(nx, ny);
    const std::size_t diff = nx > ny ? nx - ny : ny - nx;
    if (axis == -1) axis = static_cast<int>(diff);
    io.check(axis >= 0 && static_cast<std::size_t>(axis) <= diff, [&] {
        return "axis " + std::to_string(axis) + " does not fit X " + to_string(xd) + " and Y " +
               to_string(yd) + " (must be -1 or in [0, " + std::to_string(diff) + "])";
    });
    const auto a = static_cast<std::size_t>(axis);
    r.x.assign(n, 1);
    r.y.assign(n, 1);
    if (nx >= ny) {
        r.x = xd;
        for (std::size_t i = 0; i < ny; ++i) r.y[a + i] = yd[i];
    } else {
        r.y = yd;
        for (std::size_t i = 0; i < nx; ++i) r.x[a + i] = xd[i];
    }
    r.out.assign(n, 1);
    for (std::size_t i = 0; i < n; ++i) {
        const auto dx = r.x[i], dy = r.y[i];
        if (dx == dy)
            r.out[i] = dx;
        else if (dx == 1)
            r.out[i] = dy;
        else if (dy == 1)
            r.out[i] = dx;
        else if (dx < 0)
            r.out[i] = dy;  // unknown X dim must equal Y's
        else if (dy < 0)
            r.out[i] = dx;
        else
            io.fail("X " + to_string(xd) + " and Y " + to_string(yd) + " (axis " +
                    std::to_string(axis) + ") do not broadcast: dim " + std::to_string(i) + " is " +
                    std::to_string(dx) + " vs " + std::to_string(dy));
    }
    return r;
}

/// Element strides of `d` (aligned to `out`) with 0 where the dim broadcasts.
inline std::vector<std::int64_t> broadcast_strides(const shape_t& d, const shape_t& out) {
    std::vector<std::int64_t> s(d.size(), 0);
    std::int64_t acc = 1;
    for (std::size_t i = d.size(); i-- > 0;) {
        s[i] = (d[i] == out[i] && out[i] != 1) ? acc : 0;
        acc *= d[i];
    }
    return s;
}

/// The one loop of a broadcasting binary op: out[i] = f(x[ix], y[iy]).  The
/// output element type O may differ from T (comparisons write bool).  Dims of
/// 1 are dropped and neighbours that step alike in X and Y merge (Y[C]
/// along X[N, C, H, W] is C runs of H * W), so the inner loop is one long
/// run, contiguous or of one repeated value on each side.
template <class T, class O, class F>
void broadcast_apply(const T* x, const T* y, O* out, const broadcast_dims& bd, F f) {
    const std::int64_t total = numel(bd.out);
    if (bd.x == bd.out && bd.y == bd.out) {
        for (std::int64_t i = 0; i < total; ++i) out[i] = f(x[i], y[i]);
        return;
    }
    if (bd.out.empty() || total == 0) {
        if (total == 1) out[0] = f(x[0], y[0]);
        return;
    }
    const auto sx0 = broadcast_strides(bd.x, bd.out), sy0 = broadcast_strides(bd.y, bd.out);
    // The merged dims, outermost first.
    std::vector<std::int64_t> ext, sx, sy;
    for (std::size_t d = 0; d < bd.out.size(); ++d) {
        if (bd.out[d] == 1) continue;
        if (!ext.empty() && sx.back() == sx0[d] * bd.out[d] && sy.back() == sy0[d] * bd.out[d]) {
            ext.back() *= bd.out[d];
            sx.back() = sx0[d];
            sy.back() = sy0[d];
            continue;
        }
        ext.push_back(bd.out[d]);
        sx.push_back(sx0[d]);
        sy.push_back(sy0[d]);
    }
    if (ext.empty()) {  // every dim 1
        out[0] = f(x[0], y[0]);
        return;
    }
    // Innermost dim in a tight loop; the outer index advances like an odometer.
    const std::size_t n = ext.size();
    const std::int64_t inner = ext[n - 1], ix_in = sx[n - 1], iy_in = sy[n - 1];
    auto run = [&](const T* xr, const T* yr, O* o) {
        if (ix_in == 1 && iy_in == 0) {
            const T b = yr[0];
            for (std::int64_t j = 0; j < inner; ++j) o[j] = f(xr[j], b);
        } else if (ix_in == 0 && iy_in == 1) {
            const T a = xr[0];
            for (std::int64_t j = 0; j < inner; ++j) o[j] = f(a, yr[j]);
        } else if (ix_in == 1 && iy_in == 1) {
            for (std::int64_t j = 0; j < inner; ++j) o[j] = f(xr[j], yr[j]);
        } else {
            for (std::int64_t j = 0; j < inner; ++j) o[j] = f(xr[j * ix_in], yr[j * iy_in]);
        }
    };
    std::vector<std::int64_t> idx(n, 0);
    std::int64_t ox = 0, oy = 0;
    for (std::int64_t o = 0; o < total; o += inner) {
        run(x + ox, y + oy, out + o);
        for (std::size_t d = n - 1; d-- > 0;) {
            ox += sx[d];
            oy += sy[d];
            if (++idx[d] < ext[d]) break;
            ox -= sx[d] * ext[d];
            oy -= sy[d] * ext[d];
            idx[d] = 0;
        }
    }
}

/// broadcast_apply split over the pool: ranges of the first dim of `out`
/// longer than 1, each a broadcast of its own (the ops are per element, so the
/// output is the same for every split).
template <class T, class O, class F>
void parallel_broadcast_apply(thread_pool* pool, const T* x, const T* y, O* out,
                              const broadcast_dims& bd, F f) {
    const auto T_ = static_cast<std::int64_t>(pool_threads(pool));
    const std::int64_t total = numel(bd.out);
    std::size_t d = 0;
    while (d < bd.out.size() && bd.out[d] == 1) ++d;
    if (T_ == 1 || total < (std::int64_t{1} << 15) || d == bd.out.size()) {
        broadcast_apply<T>(x, y, out, bd, f);
        return;
    }
    const auto sx = broadcast_strides(bd.x, bd.out), sy = broadcast_strides(bd.y, bd.out);
    const std::int64_t len = bd.out[d], below = total / len;
    const std::int64_t per = (len + T_ - 1) / T_, tasks = (len + per - 1) / per;
    parallel_tasks(pool, tasks, [&](std::int64_t t) {
        const std::int64_t a = t * per, b = std::min(len, a + per);
        broadcast_dims part = bd;
        part.out[d] = b - a;
        if (part.x[d] != 1) part.x[d] = b - a;
        if (part.y[d] != 1) part.y[d] = b - a;
        broadcast_apply<T>(x + a * sx[d], y + a * sy[d], out + a * below, part, f);
    });
}

struct elementwise {
    static constexpr std::string_view paddle_types[] = {
        "elementwise_add", "elementwise_sub",      "elementwise_mul",
        "elementwise_div", "elementwise_max",      "elementwise_min",
        "elementwise_pow", "elementwise_floordiv", "elementwise_mod"};
    static constexpr pir_name pir_names[] = {
        {"1.add", "elementwise_add", pir_form::binary},
        {"1.subtract", "elementwise_sub", pir_form::binary},
        {"1.multiply", "elementwise_mul", pir_form::binary},
        {"1.divide", "elementwise_div", pir_form::binary},
        {"1.maximum", "elementwise_max", pir_form::binary},
        {"1.minimum", "elementwise_min", pir_form::binary},
        {"1.elementwise_pow", "elementwise_pow", pir_form::binary},
        {"1.floor_divide", "elementwise_floordiv", pir_form::binary},
        {"1.remainder", "elementwise_mod", pir_form::binary}};
    /// broadcast_apply reads x[i] and y[j] before it writes out[i].
    static constexpr in_place_rule in_place = in_place_rule::elementwise;
    /// Point-wise in a patched stage (ops/op.hpp).
    static constexpr patch_kind patch = patch_kind::point;
    enum class kind : std::uint8_t { add, sub, mul, div, max, min, pow, floordiv, mod };
    /// The op type of one kind (type_of(kind::add) == "elementwise_add").
    static constexpr std::string_view type_of(kind k) {
        return paddle_types[static_cast<std::size_t>(k)];
    }
    struct params {
        kind op = kind::add;
        int axis = -1;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        bool found = false;
        for (std::size_t i = 0; i < std::size(paddle_types); ++i)
            if (type == paddle_types[i]) {
                p.op = static_cast<kind>(i);
                found = true;
            }
        if (!found)
            LITEGRAPH_THROW(
                unsupported_error("elementwise: unknown op type '" + std::string(type) + "'"));
        p.axis = a.get<int>("axis", -1);
        // Paddle Lite's fused variants carry an activation in a string attribute.
        if (!a.get<std::string>("act_type", "").empty() ||
            !a.get<std::string>("fuse_activation", "").empty())
            LITEGRAPH_THROW(unsupported_error(std::string(type) +
                                              ": a fused activation attribute is not supported"));
        return p;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& y = io.input("Y");
        io.check(x.type == y.type, [&] {
            return "X is " + std::string(name_of(x.type)) + " but Y is " +
                   std::string(name_of(y.type));
        });
        io.check(x.type == dtype::f32 || x.type == dtype::f64 || x.type == dtype::i32 ||
                     x.type == dtype::i64,
                 [&] {
                     return "X and Y must be float32, float64, int32 or int64, got " +
                            std::string(name_of(x.type));
                 });
        auto bd = paddle_broadcast(x.shape, y.shape, p.axis, io);
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = bd.out;
    }

    /// The firmware form (ops/firmware.hpp) of elementwise_add on float32:
    /// Out[i] = X[i] + Y[(i / post) % count], Y (a constant or a tensor)
    /// covering one run of X's dims exactly.  The other kinds and broadcasts
    /// have none.
    struct form {
        std::int64_t total = 0, count = 1, post = 1;
        constexpr auto fields() const { return std::tie(total, count, post); }
    };
    static constexpr std::string_view firmware_inputs[] = {"X", "Y"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        if (p.op != kind::add) no_firmware_form("has no compile-time form");
        const auto& x = io.input("X");
        const auto& y = io.input("Y");
        auto bd = paddle_broadcast(x.shape, y.shape, p.axis, io);
        if (bd.x != bd.out || x.type != dtype::f32 || y.type != dtype::f32)
            no_firmware_form("elementwise_add where X " + to_string(x.shape) +
                             " broadcasts (or is not float32)");
        // Y must cover one run of dims [a, b) of the output exactly.
        std::size_t a = 0, b = bd.y.size();
        while (a < b && bd.y[a] == 1) ++a;
        while (b > a && bd.y[b - 1] == 1) --b;
        form f;
        for (std::size_t i = a; i < b; ++i) {
            if (bd.y[i] != bd.out[i])
                no_firmware_form("elementwise_add with Y " + to_string(y.shape) +
                                 " broadcasting inside X " + to_string(x.shape));
            f.count *= bd.y[i];
        }
        for (std::size_t i = b; i < bd.out.size(); ++i) f.post *= bd.out[i];
        f.total = io.output("Out").numel();
        return f;
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::add_repeated(io.input<float>(0), io.input<float>(1), io.output<float>(), f.total,
                              f.count, f.post);
    }

    template <class F>
    static void run_with(const params& p, op_io& io, F f) {
        const auto& x = io.input("X");
        const auto& y = io.input("Y");
        auto& out = io.output("Out");
        auto bd = paddle_broadcast(x.shape, y.shape, p.axis, io);
        visit_dtype(x.type, [&]<class T>(T) {
            if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                          std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>) {
                if constexpr (std::is_integral_v<T> &&
                              (std::is_same_v<F, bin::div> || std::is_same_v<F, bin::floordiv> ||
                               std::is_same_v<F, bin::mod>)) {
                    if (out.numel() > 0)
                        for (T v : y.span<T>())
                            if (v == T(0))
                                io.fail(std::is_same_v<F, bin::mod>
                                            ? "integer modulo by zero (Y has a 0)"
                                            : "integer division by zero (Y has a 0)");
                }
                parallel_broadcast_apply<T>(io.pool, x.as<T>(), y.as<T>(), out.as<T>(), bd, f);
            } else {
                io.fail("unsupported dtype " + std::string(name_of(x.type)));
            }
        });
    }

    static void run(const params& p, op_io& io) {
        switch (p.op) {
            case kind::add:
                return run_with(p, io, bin::add{});
            case kind::sub:
                return run_with(p, io, bin::sub{});
            case kind::mul:
                return run_with(p, io, bin::mul{});
            case kind::div:
                return run_with(p, io, bin::div{});
            case kind::max:
                return run_with(p, io, bin::max{});
            case kind::min:
                return run_with(p, io, bin::min{});
            case kind::pow:
                return run_with(p, io, bin::pow{});
            case kind::floordiv:
                return run_with(p, io, bin::floordiv{});
            case kind::mod:
                return run_with(p, io, bin::mod{});
        }
    }
};

}  // namespace litegraph::ops
