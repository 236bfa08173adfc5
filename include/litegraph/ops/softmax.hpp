// softmax along `axis` (default -1), numerically stable: exp(x - max) / sum;
// log_softmax: x - max - log(sum(exp(x - max))).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <tuple>

#include "litegraph/kernels/softmax.hpp"
#include "litegraph/ops/firmware.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct softmax {
    static constexpr std::string_view paddle_types[] = {"softmax"};
    static constexpr pir_name pir_names[] = {{"1.softmax", "softmax"}};
    struct params {
        int axis = -1;
    };

    static params parse(const attr_map& a, std::string_view) { return {a.get<int>("axis", -1)}; }

    /// The axis as an index into a shape of `rank` dims; a 0-D tensor has axis 0.
    static std::size_t axis_of(const params& p, std::size_t rank, const op_io& io) {
        const auto r = static_cast<std::int64_t>(rank == 0 ? 1 : rank);
        io.check(p.axis >= -r && p.axis < r, [&] {
            return "axis " + std::to_string(p.axis) + " is out of range for a tensor of rank " +
                   std::to_string(rank);
        });
        return static_cast<std::size_t>(p.axis < 0 ? p.axis + r : p.axis);
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32,
                 [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
        axis_of(p, x.shape.size(), io);
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
    }

    /// The firmware form (ops/firmware.hpp): X as outer x count x inner.
    struct form {
        std::int64_t outer = 1, count = 1, inner = 1;
        constexpr auto fields() const { return std::tie(outer, count, inner); }
    };
    static constexpr std::string_view firmware_inputs[] = {"X"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        const auto& x = io.input("X");
        const std::size_t ax = axis_of(p, x.shape.size(), io);
        form f;
        for (std::size_t i = 0; i < x.shape.size(); ++i)
            (i < ax ? f.outer : (i == ax ? f.count : f.inner)) *= x.shape[i];
        return f;
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::softmax(io.input<float>(0), io.output<float>(), f.outer, f.count, f.inner);
    }

    static void run(const params& p, op_io& io) { run_firmware_form<softmax>(p, io); }
};

/// log_softmax along `axis` (default -1), float32: x - max - log(sum exp(x - max)).
struct log_softmax {
    static constexpr std::string_view paddle_types[] = {"log_softmax"};
    static constexpr pir_name pir_names[] = {{"1.log_softmax", "log_softmax", pir_form::unary}};
    static constexpr pir_attr pir_attrs[] = {{"axis"}};
    using params = softmax::params;

    static params parse(const attr_map& a, std::string_view) { return {a.get<int>("axis", -1)}; }

    static void infer(const params& p, op_io& io) { softmax::infer(p, io); }

    static void run(const params& p, op_io& io) {
        const auto& xr = io.input("X");
        const float* x = xr.as<float>();
        float* out = io.output("Out").as<float>();
        const std::size_t ax = softmax::axis_of(p, xr.shape.size(), io);
        std::int64_t outer = 1, n = 1, inner = 1;
        for (std::size_t i = 0; i < xr.shape.size(); ++i) {
            if (i < ax)
                outer *= xr.shape[i];
            else if (i == ax)
                n = xr.shape[i];
            else
                inner *= xr.shape[i];
        }
        if (outer * n * inner == 0) return;  // empty: no element (and no buffer) to touch
        for (std::int64_t o = 0; o < outer; ++o)
            for (std::int64_t k = 0; k < inner; ++k) {
                const float* xs = x + o * n * inner + k;
                float* os = out + o * n * inner + k;
                float m = -INFINITY;
                for (std::int64_t j = 0; j < n; ++j) m = std::max(m, xs[j * inner]);
                float sum = 0.f;
                for (std::int64_t j = 0; j < n; ++j) sum += std::exp(xs[j * inner] - m);
                const float lse = std::log(sum);
                for (std::int64_t j = 0; j < n; ++j) os[j * inner] = xs[j * inner] - m - lse;
            }
    }
};

}  // namespace litegraph::ops
