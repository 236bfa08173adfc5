// box_coder: encodes boxes against priors, or decodes offsets into boxes,
// as Paddle's CPU kernel (float32, its order of operations).  PriorBox [M, 4]
// (x1, y1, x2, y2); the variances come from PriorBoxVar ([M, 4], one row per
// prior) or the `variance` attribute (4 values; not both), else 1.
// box_normalized = false adds 1 to widths and heights (pixel boxes).
//   encode_center_size: TargetBox [N, 4] -> OutputBox [N, M, 4] of
//     ((tcx - pcx) / pw, (tcy - pcy) / ph, log|tw / pw|, log|th / ph|)
//     divided by the variances.
//   decode_center_size: TargetBox [N, M, 4] -> OutputBox [N, M, 4]; with
//     axis 0 prior j serves column j (M priors), with axis 1 prior i serves
//     row i (N priors).  cx = var_x * t_x * pw + pcx, w = exp(var_w * t_w) * pw,
//     and so on; the box is (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), less 1
//     at the far corner for pixel boxes.
// (A build that lets the compiler contract a * b + c into fused multiply-adds
// may differ from Paddle in the last bit.)
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct box_coder {
    static constexpr std::string_view paddle_types[] = {"box_coder"};
    static constexpr pir_name pir_names[] = {{"1.box_coder", "box_coder"}};
    struct params {
        bool encode = true;
        bool normalized = true;
        std::int64_t axis = 0;
        std::vector<float> variance;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        const auto code = a.get<std::string>("code_type", "encode_center_size");
        if (code != "encode_center_size" && code != "decode_center_size")
            throw unsupported_error("op " + std::string(type) + ": code_type '" + code +
                                    "' is not supported (encode_center_size, decode_center_size)");
        p.encode = code == "encode_center_size";
        p.normalized = a.get<bool>("box_normalized", true);
        p.axis = a.get<std::int64_t>("axis", 0);
        if (p.axis != 0 && p.axis != 1)
            throw unsupported_error("op " + std::string(type) + ": axis " + std::to_string(p.axis) +
                                    " is not supported (0 or 1)");
        p.variance = a.get<std::vector<float>>("variance", {});
        return p;
    }

    /// The output shape [N, M, 4]; checks the inputs.
    static shape_t check(const params& p, const op_io& io) {
        const auto& prior = io.input("PriorBox");
        const auto& target = io.input("TargetBox");
        for (const tensor_ref* t : {&prior, &target})
            io.check(t->type == dtype::f32, [&] {
                return "'" + std::string(t->name) + "' must be float32, got " +
                       std::string(name_of(t->type));
            });
        io.check(prior.shape.size() == 2 && prior.shape[1] == 4,
                 [&] { return "PriorBox must be [M, 4], has shape " + to_string(prior.shape); });
        const bool has_var = io.input_count("PriorBoxVar") > 0;
        io.check(!(has_var && !p.variance.empty()),
                 "the PriorBoxVar input and the variance attribute cannot both be given");
        io.check(p.variance.empty() || p.variance.size() == 4, [&] {
            return "variance must hold 4 values, holds " + std::to_string(p.variance.size());
        });
        if (has_var) {
            const auto& var = io.input("PriorBoxVar");
            io.check(var.type == dtype::f32, [&] {
                return "PriorBoxVar must be float32, got " + std::string(name_of(var.type));
            });
            io.check(var.shape == prior.shape, [&] {
                return "PriorBoxVar has shape " + to_string(var.shape) + ", PriorBox " +
                       to_string(prior.shape);
            });
        }
        const auto m = prior.shape[0];
        auto same = [](std::int64_t a, std::int64_t b) { return a < 0 || b < 0 || a == b; };
        if (p.encode) {
            io.check(target.shape.size() == 2 && target.shape[1] == 4, [&] {
                return "TargetBox must be [N, 4] to encode, has shape " + to_string(target.shape);
            });
            return {target.shape[0], m, 4};
        }
        io.check(target.shape.size() == 3 && target.shape[2] == 4, [&] {
            return "TargetBox must be [N, M, 4] to decode, has shape " + to_string(target.shape);
        });
        const auto along = target.shape[p.axis == 0 ? 1 : 0];
        io.check(same(along, m), [&] {
            return "PriorBox has " + std::to_string(m) + " boxes, TargetBox dim " +
                   std::to_string(p.axis == 0 ? 1 : 0) + " is " + std::to_string(along) +
                   " (axis " + std::to_string(p.axis) + ")";
        });
        return target.shape;
    }

    static void infer(const params& p, op_io& io) {
        auto s = check(p, io);
        auto& o = io.output("OutputBox");
        o.type = dtype::f32;
        o.shape = std::move(s);
    }

    static void run(const params& p, op_io& io) {
        const auto s = check(p, io);
        const auto row = s[0], col = s[1];
        io.check(io.output("OutputBox").numel() == row * col * 4, "OutputBox does not fit");
        const float* prior = io.input("PriorBox").as<float>();
        const float* target = io.input("TargetBox").as<float>();
        const float* pvar =
            io.input_count("PriorBoxVar") > 0 ? io.input("PriorBoxVar").as<float>() : nullptr;
        float* out = io.output("OutputBox").as<float>();
        const float plus = p.normalized ? 0.f : 1.f;
        if (p.encode) {
            for (std::int64_t i = 0; i < row; ++i)
                for (std::int64_t j = 0; j < col; ++j) {
                    const float* pb = prior + j * 4;
                    const float* tb = target + i * 4;
                    const float pw = pb[2] - pb[0] + plus;
                    const float ph = pb[3] - pb[1] + plus;
                    const float pcx = pb[0] + pw / 2;
                    const float pcy = pb[1] + ph / 2;
                    const float tcx = (tb[2] + tb[0]) / 2;
                    const float tcy = (tb[3] + tb[1]) / 2;
                    const float tw = tb[2] - tb[0] + plus;
                    const float th = tb[3] - tb[1] + plus;
                    float* o = out + (i * col + j) * 4;
                    o[0] = (tcx - pcx) / pw;
                    o[1] = (tcy - pcy) / ph;
                    o[2] = std::log(std::fabs(tw / pw));
                    o[3] = std::log(std::fabs(th / ph));
                    for (int k = 0; k < 4; ++k) {
                        if (pvar)
                            o[k] /= pvar[j * 4 + k];
                        else if (!p.variance.empty())
                            o[k] /= p.variance[static_cast<std::size_t>(k)];
                    }
                }
            return;
        }
        for (std::int64_t i = 0; i < row; ++i)
            for (std::int64_t j = 0; j < col; ++j) {
                const auto pi = p.axis == 0 ? j : i;
                const float* pb = prior + pi * 4;
                const float pw = pb[2] - pb[0] + plus;
                const float ph = pb[3] - pb[1] + plus;
                const float pcx = pb[0] + pw / 2;
                const float pcy = pb[1] + ph / 2;
                float var[4] = {1.f, 1.f, 1.f, 1.f};
                if (pvar)
                    std::memcpy(var, pvar + pi * 4, sizeof var);
                else if (!p.variance.empty())
                    std::memcpy(var, p.variance.data(), sizeof var);
                const float* t = target + (i * col + j) * 4;
                const float cx = var[0] * t[0] * pw + pcx;
                const float cy = var[1] * t[1] * ph + pcy;
                const float w = std::exp(var[2] * t[2]) * pw;
                const float h = std::exp(var[3] * t[3]) * ph;
                float* o = out + (i * col + j) * 4;
                o[0] = cx - w / 2;
                o[1] = cy - h / 2;
                o[2] = cx + w / 2 - plus;
                o[3] = cy + h / 2 - plus;
            }
    }
};

}  // namespace litegraph::ops
