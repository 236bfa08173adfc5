// fuzz_pir's program generator: input bytes read as a recipe (byte_reader)
// become a small, well-formed PIR program (tests/pir_json.hpp) of one to four
// ops named from the reader's own op table (loader/paddle/pir/names.hpp op_table()),
// so that every translation rule is reached without a byte of a real model:
//   - one to three program inputs (`1.data`) of dtype float32 (mostly), int64,
//     int32 or bool, rank 0-4, dims 1-6 (sometimes -1);
//   - each op: zero to five operands, each an earlier tensor, a constant the
//     rules look for (`1.full_int_array` of up to four ints, a scalar `1.full`),
//     a list (`0.combine` of earlier tensors) or absent (id 0); zero to four
//     attributes named from the rules' attribute names with a tag and value
//     from the bytes; one to three results, typed like an operand or float32;
//   - the last op's first result and sometimes one more value are fetched.
// The result is loaded, run through the passes and planned (and run when
// cheap) as any PIR input (harness.hpp run_pir): a typed error is fine, any
// other failure is a finding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/byte_reader.hpp"
#include "litegraph/loader/paddle/pir.hpp"
#include "pir_json.hpp"

namespace litegraph::fuzz {

namespace pir_recipe_detail {

using test::pir_json::json;

/// The attribute names the translation rules read (the copy() and
/// attr<>() calls), and strings their string attributes take.
inline constexpr const char* attr_names[] = {"activation",
                                             "alpha",
                                             "approximate",
                                             "aspect_ratios",
                                             "asvector",
                                             "axes",
                                             "axis",
                                             "begin_norm_axis",
                                             "beta",
                                             "bias",
                                             "bias_after_scale",
                                             "blank",
                                             "box_normalized",
                                             "ceil_mode",
                                             "clip",
                                             "code_type",
                                             "data_format",
                                             "data_layout",
                                             "decrease_axis",
                                             "descending",
                                             "dropout_implementation",
                                             "dropout_prob",
                                             "dtype",
                                             "epsilon",
                                             "exclusive",
                                             "factor",
                                             "flatten",
                                             "flatten_to_2d",
                                             "flip",
                                             "gate_activation",
                                             "groups",
                                             "hidden_size",
                                             "infer_flags",
                                             "input_dim_idx",
                                             "input_size",
                                             "is_bidirec",
                                             "is_reverse",
                                             "is_test",
                                             "keep_dim",
                                             "keepdim",
                                             "keepdims",
                                             "kernel_size",
                                             "kernels",
                                             "ksize",
                                             "lambda",
                                             "largest",
                                             "max_sizes",
                                             "merge_repeated",
                                             "min_sizes",
                                             "mode",
                                             "negative_slope",
                                             "num",
                                             "num_layers",
                                             "offset",
                                             "origin_mode",
                                             "out_stride",
                                             "output_dim_idx",
                                             "output_padding",
                                             "pad_value",
                                             "padding_algorithm",
                                             "padding_idx",
                                             "padding_value",
                                             "paddings",
                                             "perm",
                                             "porder",
                                             "reduce_all",
                                             "ref_level",
                                             "reverse",
                                             "shape",
                                             "slope",
                                             "sorted",
                                             "start_axis",
                                             "step_h",
                                             "step_w",
                                             "stop_axis",
                                             "strides",
                                             "t_max",
                                             "t_min",
                                             "target_shape",
                                             "threshold",
                                             "trans_x",
                                             "trans_y",
                                             "transpose_x",
                                             "transpose_y",
                                             "upscale_factor",
                                             "value",
                                             "variance",
                                             "variances",
                                             "y",
                                             "interp_method",
                                             "align_corners",
                                             "align_mode",
                                             "out_h",
                                             "out_w",
                                             "scale",
                                             "min",
                                             "max",
                                             "start",
                                             "end",
                                             "step",
                                             "place",
                                             "name",
                                             "values",
                                             "momentum",
                                             "use_global_stats",
                                             "trainable_statistics",
                                             "pooling_type",
                                             "global_pooling",
                                             "adaptive",
                                             "dilations",
                                             "output_size",
                                             "densities",
                                             "fixed_sizes",
                                             "fixed_ratios",
                                             "upscale_in_train"};
inline constexpr const char* strings[] = {"NCHW",
                                          "NHWC",
                                          "EXPLICIT",
                                          "SAME",
                                          "VALID",
                                          "float32",
                                          "int64",
                                          "int32",
                                          "bool",
                                          "float16",
                                          "nearest",
                                          "bilinear",
                                          "constant",
                                          "reflect",
                                          "replicate",
                                          "avg",
                                          "max",
                                          "all",
                                          "channel",
                                          "element",
                                          "upscale_in_train",
                                          "downgrade_in_infer",
                                          "sigmoid",
                                          "tanh",
                                          "relu",
                                          "identity",
                                          "encode_center_size",
                                          "decode_center_size",
                                          "LSTM",
                                          "GRU",
                                          "",
                                          "undefined"};
inline constexpr const char* attr_tags[] = {"0.a_bool",  "0.a_i32",      "0.a_i64",
                                            "0.a_f32",   "0.a_f64",      "0.a_str",
                                            "1.a_dtype", "1.a_intarray", "0.a_array"};

struct dtype_choice {
    const char* name;
    const char* tag;
};
inline constexpr dtype_choice dtypes[] = {{"float32", "0.t_f32"}, {"float32", "0.t_f32"},
                                          {"float32", "0.t_f32"}, {"int64", "0.t_i64"},
                                          {"int32", "0.t_i32"},   {"bool", "0.t_bool"}};

struct value {
    std::int64_t id;
    json type;  // its TT
};

class generator {
public:
    explicit generator(byte_reader& in) : in_(in) {}

    std::string text() {
        using namespace test::pir_json;
        json ops = json::array();
        const int inputs = pick(1, 3);
        for (int i = 0; i < inputs; ++i) {
            const auto& d = dtypes[pick(0, int(std::size(dtypes)) - 1)];
            const auto dims = some_dims();
            const auto id = next_++;
            ops.push_back(data("x" + std::to_string(i), id, dims, d.name, d.tag));
            tensors_.push_back({id, tensor_type(d.tag, dims)});
        }
        const auto& table = paddle::pir::op_table();
        const int count = pick(1, 4);
        std::int64_t last = tensors_.front().id;
        for (int k = 0; k < count; ++k) {
            std::string name(table[std::size_t(pick(0, int(table.size()) - 1))].first);
            if (name == "1.data" || name == "1.fetch") name = "1.relu";
            std::vector<std::int64_t> operands;
            const int n_in = pick(0, 5);
            for (int i = 0; i < n_in; ++i) operands.push_back(operand(ops));
            json attrs = json::array();
            const int n_attr = pick(0, 4);
            for (int i = 0; i < n_attr; ++i) attrs.push_back(attribute());
            std::vector<std::pair<std::int64_t, json>> results;
            const int n_out = pick(1, 3);
            for (int i = 0; i < n_out; ++i) {
                json tt = pick(0, 1) ? any_tensor().type : tensor_type("0.t_f32", some_dims());
                results.emplace_back(next_++, tt);
            }
            ops.push_back(op(name, operands, results, attrs));
            for (auto& [id, tt] : results) tensors_.push_back({id, tt});
            last = results.front().first;
        }
        ops.push_back(fetch(last, next_++, 0));
        if (pick(0, 3) == 0) ops.push_back(fetch(any_tensor().id, next_++, 1));
        return program(std::move(ops)).dump();
    }

private:
    int pick(int lo, int hi) { return in_.ConsumeIntegralInRange<int>(lo, hi); }

    std::vector<std::int64_t> some_dims() {
        std::vector<std::int64_t> d(std::size_t(pick(0, 4)));
        for (auto& x : d) x = pick(0, 7) == 0 ? -1 : pick(1, 6);
        return d;
    }

    const value& any_tensor() { return tensors_[std::size_t(pick(0, int(tensors_.size()) - 1))]; }

    /// An operand: an earlier tensor, a new constant or list, or absent (0).
    std::int64_t operand(json& ops) {
        using namespace test::pir_json;
        switch (pick(0, 5)) {
            case 0:
                return 0;
            case 1: {  // 1.full_int_array
                std::vector<std::int64_t> v(std::size_t(pick(0, 4)));
                for (auto& x : v) x = pick(-2, 8);
                const auto id = next_++;
                const bool i32 = pick(0, 3) == 0;
                ops.push_back(
                    op("1.full_int_array", {},
                       {{id, tensor_type(i32 ? "0.t_i32" : "0.t_i64", {std::int64_t(v.size())})}},
                       json::array({attr("value", "1.a_intarray", v),
                                    attr("dtype", "1.a_dtype", i32 ? "int32" : "int64")})));
                return id;
            }
            case 2: {  // a scalar 1.full
                const auto& d = dtypes[pick(0, int(std::size(dtypes)) - 1)];
                const auto id = next_++;
                const double v = pick(-8, 16) * 0.5;
                ops.push_back(
                    op("1.full", {}, {{id, tensor_type(d.tag, {1})}},
                       json::array({attr("shape", "1.a_intarray", {1}), attr("value", "0.a_f64", v),
                                    attr("dtype", "1.a_dtype", d.name)})));
                return id;
            }
            case 3: {  // 0.combine of earlier tensors
                std::vector<std::int64_t> elems;
                json types = json::array();
                const int n = pick(1, 3);
                for (int i = 0; i < n; ++i) {
                    const auto& t = any_tensor();
                    elems.push_back(t.id);
                    types.push_back(t.type);
                }
                const auto id = next_++;
                ops.push_back(op("0.combine", elems, {{id, {{"#", "0.t_vec"}, {"D", types}}}}));
                return id;
            }
            default:
                return any_tensor().id;
        }
    }

    json scalar_of(const std::string& tag) {
        if (tag == "0.a_bool") return pick(0, 1) == 1;
        if (tag == "0.a_i32" || tag == "0.a_i64") return pick(-2, 8);
        if (tag == "0.a_f32" || tag == "0.a_f64") return pick(-8, 24) * 0.25;
        return strings[pick(0, int(std::size(strings)) - 1)];  // 0.a_str, 1.a_dtype
    }

    json attribute() {
        using namespace test::pir_json;
        const std::string name = attr_names[pick(0, int(std::size(attr_names)) - 1)];
        const std::string tag = attr_tags[pick(0, int(std::size(attr_tags)) - 1)];
        if (tag == "1.a_intarray") {
            std::vector<std::int64_t> v(std::size_t(pick(0, 4)));
            for (auto& x : v) x = pick(-2, 8);
            return attr(name, tag, v);
        }
        if (tag == "0.a_array") {
            const std::string item = attr_tags[pick(0, 5)];
            json items = json::array();
            const int n = pick(0, 4);
            for (int i = 0; i < n; ++i) items.push_back({{"#", item}, {"D", scalar_of(item)}});
            return attr(name, tag, items);
        }
        return attr(name, tag, scalar_of(tag));
    }

    byte_reader& in_;
    std::int64_t next_ = 1;
    std::vector<value> tensors_;
};

}  // namespace pir_recipe_detail

/// The PIR program (JSON text) a recipe describes (see the top of this file).
inline std::string pir_program_from_recipe(const std::uint8_t* data, std::size_t size) {
    byte_reader in(data, size);
    return pir_recipe_detail::generator(in).text();
}

}  // namespace litegraph::fuzz
