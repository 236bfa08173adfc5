// Fake quantisation, simulated in fp32 as Paddle's CPU kernels do at inference:
//   fake_quantize_dequantize_moving_average_abs_max: per tensor, scale = InScale
//   fake_quantize_dequantize_abs_max:                per tensor, scale = max|X|
//   fake_channel_wise_quantize_dequantize_abs_max:   per channel along quant_axis,
//                                                    scale = max|X| of the channel
// With bnt = 2^(bit_length-1) - 1 and inv = 1/s (1/(s+1e-6) when s <= 1e-30):
//   round_type 1 (default): q = round_half_away(bnt*inv * clip(x, -s, s))
//   round_type 0:           q = clamp(round_half_even(bnt*inv * x), -bnt-1, bnt)
//   Out = q * s / bnt.
// quantize_linear / dequantize_linear (Paddle's newer export; Scale holds the
// abs-max range s, one value, or one per channel along quant_axis >= 0; a
// zero ZeroPoint only):
//   quantize_linear:   Y = q (as above, kept in float32)
//   dequantize_linear: Y = X * s / bnt
// round_type defaults to 0 for them (Paddle's default for these ops).
// The older split form (QAT exports before quantize_linear):
//   fake_quantize_moving_average_abs_max: Out = q with scale InScale (Out holds
//                                         the integer values in float32)
//   fake_dequantize_max_abs:              Out = X * Scale / max_range
// The moving-average op always uses InScale (the inference path; the training
// update of InAccum/InState is not simulated) and leaves OutScale, OutAccum and
// OutState unset: in exported models OutScale is InScale itself.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

/// The per-element quantise-dequantise of one scale: a functor like the
/// activations, so that it can also serve as an epilogue.
struct quant_dequant {
    float scale = 1.f;
    float bnt = 127.f;
    int round_type = 1;

    float operator()(float x) const {
        const float s = scale;
        const float inv = s <= 1e-30f ? 1.f / (s + 1e-6f) : 1.f / s;
        const float k = bnt * inv;
        float q;
        if (round_type == 0) {
            q = std::nearbyint(k * x);  // default FP environment: ties to even
            q = std::min(std::max(q, -bnt - 1.f), bnt);
        } else {
            q = std::round(k * std::min(std::max(x, -s), s));
        }
        return q * s / bnt;
    }
};

namespace detail {
struct fake_quant_params {
    int bit_length = 8;
    int round_type = 1;
    int quant_axis = 0;
    float bnt() const { return static_cast<float>((1 << (bit_length - 1)) - 1); }
};

inline fake_quant_params parse_fake_quant(const attr_map& a, std::string_view type) {
    fake_quant_params p{a.get<int>("bit_length", 8), a.get<int>("round_type", 1),
                        a.get<int>("quant_axis", 0)};
    if (p.bit_length < 2 || p.bit_length > 16)
        throw unsupported_error(std::string(type) + ": bit_length " + std::to_string(p.bit_length) +
                                " is not in [2, 16]");
    if (p.round_type != 0 && p.round_type != 1)
        throw unsupported_error(std::string(type) + ": round_type " + std::to_string(p.round_type) +
                                " is not 0 or 1");
    return p;
}

inline const tensor_ref& float_x(op_io& io) {
    const auto& x = io.input("X");
    io.check(x.type == dtype::f32,
             [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
    return x;
}

inline float abs_max(const float* x, std::int64_t n) {
    float m = 0.f;
    for (std::int64_t i = 0; i < n; ++i) m = std::max(m, std::abs(x[i]));
    return m;
}
}  // namespace detail

struct fake_quantize_dequantize_moving_average_abs_max {
    static constexpr std::string_view paddle_types[] = {
        "fake_quantize_dequantize_moving_average_abs_max"};
    using params = detail::fake_quant_params;
    static params parse(const attr_map& a, std::string_view t) {
        return detail::parse_fake_quant(a, t);
    }

    static void infer(const params&, op_io& io) {
        const auto& x = detail::float_x(io);
        const auto& s = io.input("InScale");
        io.check(s.type == dtype::f32, "InScale must be float32");
        io.check(!is_known(s.shape) || numel(s.shape) == 1,
                 [&] { return "InScale must hold one value, has shape " + to_string(s.shape); });
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& s = io.input("InScale");
        io.check(s.has_data() && s.numel() == 1, "InScale has no value");
        const quant_dequant f{s.as<float>()[0], p.bnt(), p.round_type};
        const float* xs = x.as<float>();
        float* out = io.output("Out").as<float>();
        const std::int64_t n = x.numel();
        for (std::int64_t i = 0; i < n; ++i) out[i] = f(xs[i]);
    }
};

struct fake_quantize_dequantize_abs_max {
    static constexpr std::string_view paddle_types[] = {"fake_quantize_dequantize_abs_max"};
    using params = detail::fake_quant_params;
    static params parse(const attr_map& a, std::string_view t) {
        return detail::parse_fake_quant(a, t);
    }

    static void infer(const params&, op_io& io) {
        const auto& x = detail::float_x(io);
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = x.shape;
        if (io.has_output("OutScale")) {
            auto& os = io.output("OutScale");
            os.type = dtype::f32;
            os.shape = {1};
        }
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const float* xs = x.as<float>();
        const std::int64_t n = x.numel();
        const quant_dequant f{detail::abs_max(xs, n), p.bnt(), p.round_type};
        float* out = io.output("Out").as<float>();
        for (std::int64_t i = 0; i < n; ++i) out[i] = f(xs[i]);
        if (io.has_output("OutScale")) io.output("OutScale").as<float>()[0] = f.scale;
    }
};

struct fake_channel_wise_quantize_dequantize_abs_max {
    static constexpr std::string_view paddle_types[] = {
        "fake_channel_wise_quantize_dequantize_abs_max"};
    using params = detail::fake_quant_params;
    static params parse(const attr_map& a, std::string_view t) {
        return detail::parse_fake_quant(a, t);
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = detail::float_x(io);
        io.check(p.quant_axis == 0 || p.quant_axis == 1,
                 [&] { return "quant_axis must be 0 or 1, got " + std::to_string(p.quant_axis); });
        io.check(x.shape.size() > static_cast<std::size_t>(p.quant_axis), [&] {
            return "X " + to_string(x.shape) + " has no dim " + std::to_string(p.quant_axis);
        });
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = x.shape;
        if (io.has_output("OutScale")) {
            auto& os = io.output("OutScale");
            os.type = dtype::f32;
            os.shape = {x.shape[static_cast<std::size_t>(p.quant_axis)]};
        }
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const float* xs = x.as<float>();
        float* out = io.output("Out").as<float>();
        const auto ax = static_cast<std::size_t>(p.quant_axis);
        std::int64_t outer = 1, inner = 1;
        for (std::size_t i = 0; i < ax; ++i) outer *= x.shape[i];
        for (std::size_t i = ax + 1; i < x.shape.size(); ++i) inner *= x.shape[i];
        const std::int64_t C = x.shape[ax];
        float* scales = io.has_output("OutScale") ? io.output("OutScale").as<float>() : nullptr;
        for (std::int64_t c = 0; c < C; ++c) {
            float s = 0.f;
            for (std::int64_t o = 0; o < outer; ++o)
                s = std::max(s, detail::abs_max(xs + (o * C + c) * inner, inner));
            const quant_dequant f{s, p.bnt(), p.round_type};
            for (std::int64_t o = 0; o < outer; ++o) {
                const std::int64_t base = (o * C + c) * inner;
                for (std::int64_t i = 0; i < inner; ++i) out[base + i] = f(xs[base + i]);
            }
            if (scales) scales[c] = s;
        }
    }
};

namespace detail {
/// The per-channel (or per-tensor) scale of a linear (de)quantize op, checked:
/// calls f(scale, first, count, stride...) over the channels.
struct linear_layout {
    std::int64_t outer = 1, channels = 1, inner = 1;
};
inline linear_layout linear_check(const fake_quant_params& p, op_io& io) {
    const auto& x = io.input("X");
    const auto& s = io.input("Scale");
    io.check(x.type == dtype::f32,
             [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
    io.check(s.type == dtype::f32, "Scale must be float32");
    if (io.has_input("ZeroPoint")) {
        const auto& z = io.input("ZeroPoint");
        if (z.has_data()) {
            bool zero = true;
            visit_dtype(z.type, [&]<class T>(T) {
                for (std::int64_t i = 0; i < z.numel(); ++i)
                    zero = zero && reinterpret_cast<const T*>(z.data)[i] == T(0);
            });
            io.check(zero, "only a zero ZeroPoint (symmetric quantisation) is supported");
        }
    }
    linear_layout l;
    if (p.quant_axis < 0 || !is_known(s.shape) || numel(s.shape) == 1) {
        io.check(!is_known(s.shape) || numel(s.shape) == 1 || p.quant_axis >= 0, [&] {
            return "Scale " + to_string(s.shape) + " must hold one value for quant_axis -1";
        });
        l.inner = is_known(x.shape) ? numel(x.shape) : 1;
        return l;
    }
    const auto ax = static_cast<std::size_t>(p.quant_axis);
    io.check(ax < x.shape.size(), [&] {
        return "X " + to_string(x.shape) + " has no dim " + std::to_string(p.quant_axis) +
               " (quant_axis)";
    });
    io.check(numel(s.shape) == x.shape[ax], [&] {
        return "Scale " + to_string(s.shape) + " must hold " + std::to_string(x.shape[ax]) +
               " values (dim quant_axis of X)";
    });
    for (std::size_t i = 0; i < ax; ++i) l.outer *= x.shape[i];
    l.channels = x.shape[ax];
    for (std::size_t i = ax + 1; i < x.shape.size(); ++i) l.inner *= x.shape[i];
    return l;
}
inline fake_quant_params parse_fake_quant_linear(const attr_map& a, std::string_view t) {
    fake_quant_params p{a.get<int>("bit_length", 8), a.get<int>("round_type", 0),
                        a.get<int>("quant_axis", -1)};
    attr_map b = a;
    b.set("round_type", std::int32_t{p.round_type});
    const auto checked = parse_fake_quant(b, t);
    p.bit_length = checked.bit_length;
    return p;
}
}  // namespace detail

struct quantize_linear {
    static constexpr std::string_view paddle_types[] = {"quantize_linear"};
    using params = detail::fake_quant_params;
    static params parse(const attr_map& a, std::string_view t) {
        return detail::parse_fake_quant_linear(a, t);
    }
    static void infer(const params& p, op_io& io) {
        detail::linear_check(p, io);
        auto& y = io.output("Y");
        y.type = dtype::f32;
        y.shape = io.input("X").shape;
    }
    static void run(const params& p, op_io& io) {
        const auto l = detail::linear_check(p, io);
        const float* x = io.input("X").as<float>();
        const float* s = io.input("Scale").as<float>();
        float* y = io.output("Y").as<float>();
        for (std::int64_t o = 0; o < l.outer; ++o)
            for (std::int64_t c = 0; c < l.channels; ++c) {
                // quant_dequant without the dequantisation: q = f(x) * bnt / s.
                const quant_dequant f{s[c], p.bnt(), p.round_type};
                const std::int64_t base = (o * l.channels + c) * l.inner;
                const float sc = s[c];
                const float inv = sc <= 1e-30f ? 1.f / (sc + 1e-6f) : 1.f / sc;
                for (std::int64_t i = 0; i < l.inner; ++i) {
                    float q;
                    if (f.round_type == 0) {
                        q = std::nearbyint(f.bnt * inv * x[base + i]);
                        q = std::min(std::max(q, -f.bnt - 1.f), f.bnt);
                    } else {
                        q = std::round(f.bnt * inv * std::min(std::max(x[base + i], -sc), sc));
                    }
                    y[base + i] = q;
                }
            }
    }
};

struct dequantize_linear {
    static constexpr std::string_view paddle_types[] = {"dequantize_linear"};
    using params = detail::fake_quant_params;
    static params parse(const attr_map& a, std::string_view t) {
        return detail::parse_fake_quant_linear(a, t);
    }
    static void infer(const params& p, op_io& io) {
        detail::linear_check(p, io);
        auto& y = io.output("Y");
        y.type = dtype::f32;
        y.shape = io.input("X").shape;
    }
    static void run(const params& p, op_io& io) {
        const auto l = detail::linear_check(p, io);
        const float* x = io.input("X").as<float>();
        const float* s = io.input("Scale").as<float>();
        float* y = io.output("Y").as<float>();
        for (std::int64_t o = 0; o < l.outer; ++o)
            for (std::int64_t c = 0; c < l.channels; ++c) {
                const float k = s[c] / p.bnt();
                const std::int64_t base = (o * l.channels + c) * l.inner;
                for (std::int64_t i = 0; i < l.inner; ++i) y[base + i] = x[base + i] * k;
            }
    }
};

struct fake_quantize_moving_average_abs_max {
    static constexpr std::string_view paddle_types[] = {"fake_quantize_moving_average_abs_max"};
    using params = detail::fake_quant_params;
    static params parse(const attr_map& a, std::string_view t) {
        return detail::parse_fake_quant(a, t);
    }
    static void infer(const params& p, op_io& io) {
        fake_quantize_dequantize_moving_average_abs_max::infer(p, io);
    }
    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& s = io.input("InScale");
        io.check(s.has_data() && s.numel() == 1, "InScale has no value");
        const float scale = s.as<float>()[0];
        const quant_dequant f{scale, p.bnt(), p.round_type};
        const float back = p.bnt() / scale;  // q = f(x) * bnt / s, as quantize_linear keeps it
        const float* xs = x.as<float>();
        float* out = io.output("Out").as<float>();
        for (std::int64_t i = 0; i < x.numel(); ++i) out[i] = std::round(f(xs[i]) * back);
    }
};

struct fake_dequantize_max_abs {
    static constexpr std::string_view paddle_types[] = {"fake_dequantize_max_abs"};
    struct params {
        float max_range = 1.f;
    };
    static params parse(const attr_map& a, std::string_view t) {
        params p{a.get<float>("max_range", 0.f)};
        if (!(p.max_range > 0.f))
            throw unsupported_error(std::string(t) + ": max_range must be positive");
        return p;
    }
    static void infer(const params&, op_io& io) {
        const auto& x = detail::float_x(io);
        const auto& s = io.input("Scale");
        io.check(s.type == dtype::f32 && (!is_known(s.shape) || numel(s.shape) == 1),
                 "Scale must be one float32");
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = x.shape;
    }
    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const float k = io.input("Scale").as<float>()[0] / p.max_range;
        const float* xs = x.as<float>();
        float* out = io.output("Out").as<float>();
        for (std::int64_t i = 0; i < x.numel(); ++i) out[i] = xs[i] * k;
    }
};

}  // namespace litegraph::ops
