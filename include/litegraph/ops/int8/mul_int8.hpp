// mul_int8: the fully connected layer in int8.  X int8 flattened to [M, K] at
// x_num_col_dims, Y int8 [K, N] (a 2-D parameter), Multiplier float32 [N]
// (X step * Y column step) -> Out [.., N]: int32 accumulation over K, then
// the requantize chain rescale -> quantize_store (attribute output_step > 0,
// int8 output) or rescale -> store (float32 output).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/kernels/cortex_m/fc_packed.hpp"
#include "litegraph/kernels/cortex_m/kernels.hpp"
#include "litegraph/kernels/cortex_m/requantize.hpp"
#include "litegraph/kernels/epilogue.hpp"
#include "litegraph/ops/int8/quantize.hpp"

namespace litegraph::ops {

struct mul_int8 {
    static constexpr std::string_view paddle_types[] = {"mul_int8"};
    static constexpr bool int8_kernel = true;
    struct params {
        int x_num_col_dims = 1;
        float output_step = 0.f;
        int8_detail::int8_kernel kernel = int8_detail::int8_kernel::fast;
    };
    static params parse(const attr_map& a, std::string_view t) {
        params p;
        p.x_num_col_dims = a.get<int>("x_num_col_dims", 1);
        p.kernel = int8_detail::parse_int8_kernel(a, t);
        p.output_step = int8_detail::output_step(a);
        if (p.output_step != 0.f) p.output_step = int8_detail::parse_step(a, "output_step", t);
        return p;
    }

    struct dims {
        std::int64_t m, k, n;
    };
    static dims check(const params& p, const op_io& io, shape_t* out_shape) {
        const auto& x = int8_detail::typed(io, "X", dtype::i8);
        const auto& y = int8_detail::typed(io, "Y", dtype::i8);
        const auto& m = int8_detail::typed(io, "Multiplier", dtype::f32);
        const auto xc = static_cast<std::size_t>(p.x_num_col_dims);
        io.check(p.x_num_col_dims >= 1 && xc < x.shape.size(), [&] {
            return "x_num_col_dims " + std::to_string(p.x_num_col_dims) + " does not split X " +
                   to_string(x.shape);
        });
        io.check(y.shape.size() == 2, [&] { return "Y must be 2-D, got " + to_string(y.shape); });
        dims d{1, 1, y.shape[1]};
        for (std::size_t i = 0; i < x.shape.size(); ++i) (i < xc ? d.m : d.k) *= x.shape[i];
        io.check(d.k == y.shape[0], [&] {
            return "X " + to_string(x.shape) + " flattens to K = " + std::to_string(d.k) + ", Y " +
                   to_string(y.shape) + " has " + std::to_string(y.shape[0]) + " rows";
        });
        io.check(m.numel() == d.n, [&] {
            return "Multiplier " + to_string(m.shape) + " must hold " + std::to_string(d.n) +
                   " values (one per column of Y)";
        });
        if (out_shape) {
            out_shape->assign(x.shape.begin(), x.shape.begin() + static_cast<std::ptrdiff_t>(xc));
            out_shape->push_back(d.n);
        }
        return d;
    }

    static void infer(const params& p, op_io& io) {
        auto& out = io.output("Out");
        shape_t s;
        check(p, io, &s);
        out.shape = s;
        out.type = p.output_step > 0.f ? dtype::i8 : dtype::f32;
    }

    /// Words of int64 scratch `compute` needs (with any int8_kernel).
    static constexpr std::int64_t scratch_words(std::int64_t k, std::int64_t n) {
        return std::max(kernels::fc_int8_best_scratch_words(k, n),
                        kernels::cortex_m::fc_int8_scratch_words(k, n));
    }

    /// The layer on raw pointers, heap-free (the firmware network's form
    /// too): x [M, K] int8, y [K, N] int8, multiplier [N]; out int8 [M, N]
    /// when output_step > 0, else float32.
    static void compute(std::int64_t m, std::int64_t k, std::int64_t n, const std::int8_t* x,
                        const std::int8_t* y, const float* multiplier, float output_step, void* out,
                        std::int64_t* scratch,
                        int8_detail::int8_kernel kernel = int8_detail::int8_kernel::fast) {
        kernels::epilogue::rescale r{multiplier};
        // The int32 accumulators row by row (the DSP kernel on Cortex-M4/M7),
        // then the requantize chain: element j is "channel" j of the rescale.
        auto rows = [&](auto* o, const auto& c) {
            auto sink = [&](std::int64_t i, std::int64_t, std::int64_t off, const std::int32_t* v,
                            std::int64_t count) {
                for (std::int64_t j = 0; j < count; ++j)
                    c.write(o, kernels::epilogue::at{i, j, off + j}, static_cast<float>(v[j]));
            };
            const kernels::int32_sink_ref to(sink);
            switch (kernel) {
                case int8_detail::int8_kernel::fast:
                    return kernels::fc_int8_best(m, k, n, x, y, scratch, to);
                case int8_detail::int8_kernel::reference:
                    return kernels::fc_int8(m, k, n, x, y, scratch, to);
                case int8_detail::int8_kernel::cortex_m:
                    return kernels::cortex_m::fc_int8(m, k, n, x, y, scratch, to);
            }
        };
        if (output_step > 0.f) {
            kernels::epilogue::chain<kernels::epilogue::rescale, kernels::epilogue::quantize_store>
                c{{r, {1.f / output_step}}};
            rows(static_cast<std::int8_t*>(out), c);
        } else {
            kernels::epilogue::chain<kernels::epilogue::rescale> c{{r}};
            rows(static_cast<float*>(out), c);
        }
    }

    /// The firmware form (ops/firmware.hpp): the product's dims and the
    /// output step (> 0: int8 output), on the fast kernel.
    struct form {
        std::int64_t m = 0, k = 0, n = 0;
        float output_step = 0.f;
        /// Y widened to int16 pairs ahead of time (packed_form, pack_words:
        /// kernels::cortex_m::fc_int8_packed); false: Y as the model has it.
        bool packed = false;
        constexpr auto fields() const { return std::tie(m, k, n, output_step, packed); }
    };
    static constexpr std::string_view firmware_inputs[] = {"X", "Y", "Multiplier"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        const auto d = check(p, io, nullptr);
        return {d.m, d.k, d.n, p.output_step};
    }
    static constexpr std::size_t scratch_bytes(const form& f) {
        return static_cast<std::size_t>(f.packed
                                            ? kernels::cortex_m::fc_packed_scratch_words(f.k, f.n)
                                            : scratch_words(f.k, f.n)) *
               sizeof(std::int64_t);
    }
    /// The form a firmware network runs (`litegraph codegen`): Y packed.
    static form packed_form(form f) {
        f.packed = true;
        return f;
    }
    /// 32-bit words of firmware input `slot` as form `f` reads it packed
    /// (pack_words), 0 when it reads the tensor as it is.
    static std::size_t packed_words(const form& f, std::size_t slot) {
        return f.packed && slot == 1
                   ? static_cast<std::size_t>(kernels::cortex_m::fc_packed_words(f.k, f.n))
                   : 0;
    }
    static void pack_words(const form& f, std::size_t slot, const std::int8_t* src,
                           std::uint32_t* dst) {
        if (packed_words(f, slot)) kernels::cortex_m::pack_fc_weights(f.k, f.n, src, dst);
    }
    static void run_form(const form& f, const firmware_io& io) {
        auto* scratch = static_cast<std::int64_t*>(io.scratch);
        if (!f.packed) {
            compute(f.m, f.k, f.n, io.input<std::int8_t>(0), io.input<std::int8_t>(1),
                    io.input<float>(2), f.output_step, io.out, scratch);
            return;
        }
        const float* multiplier = io.input<float>(2);
        const auto* w = static_cast<const std::uint32_t*>(io.in[1]);
        if (f.output_step > 0.f) {
            // The chain rescale -> quantize_store as one loop per row (bit for
            // bit the chain's: kernels/cortex_m/requantize.hpp).
            auto* out = io.output<std::int8_t>();
            const float inv = 1.f / f.output_step;
            auto sink = [&](std::int64_t, std::int64_t, std::int64_t off, const std::int32_t* v,
                            std::int64_t count) {
                kernels::cortex_m::requantize_channels(out + off, v, count, multiplier, inv);
            };
            kernels::cortex_m::fc_int8_packed(f.m, f.k, f.n, io.input<std::int8_t>(0), w, scratch,
                                              kernels::int32_sink_ref(sink));
        } else {
            auto* out = io.output<float>();
            kernels::epilogue::chain<kernels::epilogue::rescale> c{{{multiplier}}};
            auto sink = [&](std::int64_t i, std::int64_t, std::int64_t off, const std::int32_t* v,
                            std::int64_t count) {
                for (std::int64_t j = 0; j < count; ++j)
                    c.write(out, kernels::epilogue::at{i, j, off + j}, static_cast<float>(v[j]));
            };
            kernels::cortex_m::fc_int8_packed(f.m, f.k, f.n, io.input<std::int8_t>(0), w, scratch,
                                              kernels::int32_sink_ref(sink));
        }
    }

    static void run(const params& p, op_io& io) {
        const auto d = check(p, io, nullptr);
        std::vector<std::int64_t> scratch(static_cast<std::size_t>(scratch_words(d.k, d.n)));
        void* out = p.output_step > 0.f ? static_cast<void*>(io.output("Out").as<std::int8_t>())
                                        : static_cast<void*>(io.output("Out").as<float>());
        compute(d.m, d.k, d.n, io.input("X").as<std::int8_t>(), io.input("Y").as<std::int8_t>(),
                io.input("Multiplier").as<float>(), p.output_step, out, scratch.data(), p.kernel);
    }
};

}  // namespace litegraph::ops
