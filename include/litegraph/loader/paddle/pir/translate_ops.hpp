// The PIR loader's translators: one per op whose translation needs code
// (operands folded from constants, lists, several results), each given the op
// type its PIR name becomes (names.hpp) and registered in translate.hpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "litegraph/loader/paddle/pir/resolve.hpp"

namespace litegraph::paddle::pir::detail {

/// The translators of the pir_form::custom ops.
class translators : public resolver {
protected:
    using resolver::resolver;

    // ---- convolution, normalisation, pooling --------------------------------------

    void conv(op_view& v, const std::string& type) {
        attr_map a;
        for (auto k :
             {"strides", "paddings", "padding_algorithm", "dilations", "groups", "data_format"})
            copy(a, v, k);
        emit(v, type, {in_slot(v, "Input", 0), in_slot(v, "Filter", 1)}, {"Output"}, std::move(a));
    }
    void conv_transpose(op_view& v, const std::string& type) {
        attr_map a;
        for (auto k : {"strides", "paddings", "output_padding", "padding_algorithm", "dilations",
                       "groups", "data_format"})
            copy(a, v, k);
        if (in_val(v, 2) != op_view::npos) {
            auto size = const_ints(in_val(v, 2));
            if (!size) return keep_untranslated(v, "output_size is not a constant");
            a.set("output_size", *size);
        }
        emit(v, type, {in_slot(v, "Input", 0), in_slot(v, "Filter", 1)}, {"Output"}, std::move(a));
    }
    void conv3d(op_view& v, const std::string& type) { conv(v, type); }
    void batch_norm(op_view& v, const std::string& type) {
        attr_map a;
        for (auto k :
             {"epsilon", "momentum", "is_test", "use_global_stats", "trainable_statistics"})
            copy(a, v, k);
        copy(a, v, "data_format", "data_layout");
        emit(v, type,
             {in_slot(v, "X", 0), in_slot(v, "Mean", 1), in_slot(v, "Variance", 2),
              in_slot(v, "Scale", 3), in_slot(v, "Bias", 4)},
             {"Y"}, std::move(a));
    }
    void layer_norm(op_view& v, const std::string& type) {
        // Operands x, scale, bias (the last two may be absent); the mean and
        // variance results are not computed.
        attr_map a;
        copy(a, v, "epsilon");
        copy(a, v, "begin_norm_axis");
        emit(v, type, {in_slot(v, "X", 0), in_slot(v, "Scale", 1), in_slot(v, "Bias", 2)}, {"Y"},
             std::move(a));
    }
    void instance_norm(op_view& v, const std::string& type) { norm(v, type, false); }
    void group_norm(op_view& v, const std::string& type) { norm(v, type, true); }
    void norm(op_view& v, const std::string& type, bool group) {
        attr_map a;
        copy(a, v, "epsilon");
        if (group) {
            copy(a, v, "groups");
            copy(a, v, "data_format", "data_layout");
        }
        emit(v, type, {in_slot(v, "X", 0), in_slot(v, "Scale", 1), in_slot(v, "Bias", 2)},
             group ? std::vector<std::string>{"Y", "Mean", "Variance"}
                   : std::vector<std::string>{"Y", "SavedMean", "SavedVariance"},
             std::move(a));
    }
    void affine_channel(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "data_layout");
        emit(v, type, {in_slot(v, "X", 0), in_slot(v, "Scale", 1), in_slot(v, "Bias", 2)}, {"Out"},
             std::move(a));
    }
    void prelu(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "mode");
        copy(a, v, "data_format");
        emit(v, type, {in_slot(v, "X", 0), in_slot(v, "Alpha", 1)}, {"Out"}, std::move(a));
    }
    void clip(op_view& v, const std::string& type) {
        // Operands x, min, max: constants (`1.full`) fold into the attributes,
        // computed bounds stay inputs.
        attr_map a;
        std::vector<slot_spec> ins{in_slot(v, "X", 0)};
        const char* names[2][2] = {{"min", "Min"}, {"max", "Max"}};
        for (std::size_t k = 1; k <= 2; ++k) {
            if (auto c = const_scalar(in_val(v, k)))
                a.set(names[k - 1][0], to_float(*c, in_path(v, k)));
            else if (in_val(v, k) != op_view::npos)
                ins.push_back(in_slot(v, names[k - 1][1], k));
            else
                return keep_untranslated(v, std::string(names[k - 1][0]) + " is absent");
        }
        emit(v, type, ins, {"Out"}, std::move(a));
    }
    static constexpr const char* pool_attrs[] = {
        "strides",      "paddings",       "ceil_mode", "exclusive",        "data_format",
        "pooling_type", "global_pooling", "adaptive",  "padding_algorithm"};
    void pool2d(op_view& v, const std::string& type) {
        attr_map a;
        for (auto k : pool_attrs) copy(a, v, k);
        auto ksize = const_ints(in_val(v, 1));
        if (!ksize) return keep_untranslated(v, "kernel_size is not a constant");
        a.set("ksize", *ksize);
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }
    void pool3d(op_view& v, const std::string& type) {
        // kernel_size is an attribute of pool3d (pool2d takes it as an operand).
        attr_map a;
        for (auto k : pool_attrs) copy(a, v, k);
        copy(a, v, "kernel_size", "ksize");
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }

    // ---- sequences and recurrent nets ---------------------------------------------

    void gru(op_view& v, const std::string& type) {
        // Operands input, h0, weight, bias (h0 and bias may be absent);
        // results batch_gate, batch_reset_hidden_prev, batch_hidden (not
        // computed by litegraph) and hidden.
        attr_map a;
        for (auto k : {"activation", "gate_activation", "is_reverse", "origin_mode"}) copy(a, v, k);
        emit(v, type,
             {in_slot(v, "Input", 0), in_slot(v, "H0", 1), in_slot(v, "Weight", 2),
              in_slot(v, "Bias", 3)},
             {"", "", "", "Hidden"}, std::move(a));
    }
    void crf_decoding(op_view& v, const std::string& type) {
        emit(v, type,
             {in_slot(v, "Emission", 0), in_slot(v, "Transition", 1), in_slot(v, "Label", 2),
              in_slot(v, "Length", 3)},
             {"ViterbiPath"}, {});
    }
    void sequence_softmax(op_view& v, const std::string& type) {
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, {});
    }
    void sequence_expand(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "ref_level");
        emit(v, type, {in_slot(v, "X", 0), in_slot(v, "Y", 1)}, {"Out"}, std::move(a));
    }
    void im2sequence(op_view& v, const std::string& type) {
        attr_map a;
        for (auto k : {"kernels", "strides", "paddings", "out_stride"}) copy(a, v, k);
        emit(v, type, {in_slot(v, "X", 0), in_slot(v, "Y", 1)}, {"Out"}, std::move(a));
    }
    void ctc_align(op_view& v, const std::string& type) {
        attr_map a;
        for (auto k : {"blank", "merge_repeated", "padding_value"}) copy(a, v, k);
        emit(v, type, {in_slot(v, "Input", 0), in_slot(v, "InputLength", 1)},
             {"Output", "OutputLength"}, std::move(a));
    }
    void rnn(op_view& v, const std::string& type) {
        // Operands: x, pre_state (a list), weight_list (a list), sequence_length
        // (optional), dropout_state_in (training only, not read).  Results:
        // out, dropout_state_out, state (a list), reserve.
        attr_map a;
        a.set("mode", std::string("RNN_TANH"));  // the default of Paddle 3.x's rnn
        for (auto k : {"dropout_prob", "is_bidirec", "input_size", "hidden_size", "num_layers",
                       "mode", "seed", "is_test"})
            copy(a, v, k);
        emit(v, type,
             {in_slot(v, "Input", 0), list_slot(v, "PreState", 1), list_slot(v, "WeightList", 2),
              in_slot(v, "SequenceLength", 3)},
             {"Out", "", "State", ""}, std::move(a));
    }

    // ---- shapes and layouts ---------------------------------------------------------

    void flatten(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "start_axis");
        copy(a, v, "stop_axis");
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }
    void transpose(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "perm", "axis");
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }
    void squeeze(op_view& v, const std::string& type) { squeeze_or_unsqueeze(v, type, false); }
    void unsqueeze(op_view& v, const std::string& type) { squeeze_or_unsqueeze(v, type, true); }
    void squeeze_or_unsqueeze(op_view& v, const std::string& type, bool unsqueeze) {
        attr_map a;
        std::vector<slot_spec> ins{in_slot(v, "X", 0)};
        if (in_val(v, 1) != op_view::npos) {
            if (auto axes = const_ints(in_val(v, 1)))
                a.set("axes", *axes);
            else if (unsqueeze)
                ins.push_back(in_slot(v, "AxesTensor", 1));
            else
                return keep_untranslated(v, "axis is not a constant");
        }
        emit(v, type, ins, {"Out"}, std::move(a));
    }
    void matmul(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "transpose_x", "trans_x");
        copy(a, v, "transpose_y", "trans_y");
        emit(v, type, {in_slot(v, "X", 0), in_slot(v, "Y", 1)}, {"Out"}, std::move(a));
    }
    void softmax(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "axis");
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }
    void concat(op_view& v, const std::string& type) {
        attr_map a;
        std::vector<slot_spec> ins{list_slot(v, "X", 0)};
        if (auto axis = const_ints(in_val(v, 1)); axis && axis->size() == 1)
            a.set("axis", axis->front());
        else if (in_val(v, 1) != op_view::npos)
            ins.push_back(in_slot(v, "AxisTensor", 1));
        emit(v, type, ins, {"Out"}, std::move(a));
    }
    void stack(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "axis");
        emit(v, type, {list_slot(v, "X", 0)}, {"Y"}, std::move(a));
    }
    void scale(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "bias");
        copy(a, v, "bias_after_scale");
        std::vector<slot_spec> ins{in_slot(v, "X", 0)};
        if (auto s = const_scalar(in_val(v, 1)))
            a.set("scale", to_float(*s, in_path(v, 1)));
        else if (in_val(v, 1) != op_view::npos)
            ins.push_back(in_slot(v, "ScaleTensor", 1));
        emit(v, type, ins, {"Out"}, std::move(a));
    }
    void dropout(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "is_test");
        copy(a, v, "mode", "dropout_implementation");
        if (in_val(v, 2) != op_view::npos) {
            auto p = const_scalar(in_val(v, 2));
            if (!p) return keep_untranslated(v, "p is not a constant");
            a.set("dropout_prob", to_float(*p, in_path(v, 2)));
        }
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }
    void slice(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "axes");
        copy(a, v, "decrease_axis");
        copy(a, v, "infer_flags");
        a.set("decrease_to_0d", true);  // Paddle 3.x: removing every dim leaves a 0-D tensor
        std::vector<slot_spec> ins{in_slot(v, "Input", 0)};
        const char* names[2][3] = {{"starts", "StartsTensor", "StartsTensorList"},
                                   {"ends", "EndsTensor", "EndsTensorList"}};
        for (std::size_t k = 1; k <= 2; ++k) {
            const auto& nm = names[k - 1];
            if (auto c = const_ints(in_val(v, k)))
                a.set(nm[0], *c);
            else if (in_val(v, k) != op_view::npos)
                ins.push_back(values_[in_val(v, k)].k == value::kind::vec ? list_slot(v, nm[2], k)
                                                                          : in_slot(v, nm[1], k));
        }
        emit(v, type, ins, {"Out"}, std::move(a));
    }
    void shape(op_view& v, const std::string& type) {
        // The second PIR name (1.shape64) yields int64 (the recognisers stack its
        // dims with int64 constants), the first (1.shape) int32.
        const auto t = table_name(v.name) == ops::shape::pir_names[1].pir ? dtype::i64 : dtype::i32;
        for (auto vi : v.out_vals)
            if (values_[vi].k == value::kind::tensor) values_[vi].type = t;
        attr_map a;
        a.set("dtype", std::int32_t{to_paddle_type(t)});
        emit(v, type, {in_slot(v, "Input", 0)}, {"Out"}, std::move(a));
    }
    void cast(op_view& v, const std::string& type) {
        attr_map a;
        auto t = dtype_of_name(attr<std::string>(v, "dtype", ""));
        if (!t) return keep_untranslated(v, "dtype is not one litegraph has");
        a.set("out_dtype", std::int32_t{to_paddle_type(*t)});
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }
    void interp(op_view& v, const std::string& type) {
        attr_map a;
        for (auto k : {"out_h", "out_w", "scale", "interp_method", "align_corners", "align_mode"})
            copy(a, v, k);
        copy(a, v, "data_format", "data_layout");
        emit(v, type,
             {in_slot(v, "X", 0), in_slot(v, "OutSize", 1), list_slot(v, "SizeTensor", 2),
              in_slot(v, "Scale", 3)},
             {"Out"}, std::move(a));
    }
    void grid_sample(op_view& v, const std::string& type) {
        // Operands x, grid; the protobuf op's output slot is "Output".
        attr_map a;
        for (auto k : {"mode", "padding_mode", "align_corners"}) copy(a, v, k);
        emit(v, type, {in_slot(v, "X", 0), in_slot(v, "Grid", 1)}, {"Output"}, std::move(a));
    }
    void embedding(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "padding_idx");
        emit(v, type, {in_slot(v, "Ids", 0), in_slot(v, "W", 1)}, {"Out"}, std::move(a));
    }

    // ---- reductions, indices ------------------------------------------------------------

    void reduce(op_view& v, const std::string& type) {
        // The axes are an operand (a constant) or, for all / any, an attribute; none
        // or an empty list reduces every dim.  Paddle 3.x: 0-D when no dim is left.
        using kind = ops::reduce::kind;
        auto is = [&](kind k) { return type == ops::reduce::paddle_types[static_cast<int>(k)]; };
        attr_map a;
        std::vector<std::int64_t> axes;
        if (is(kind::all) || is(kind::any)) {
            axes = attr<std::vector<std::int64_t>>(v, "axis", {});
        } else if (in_val(v, 1) != op_view::npos) {
            auto c = const_ints(in_val(v, 1));
            if (!c) return keep_untranslated(v, "axis is not a constant");
            axes = *c;
        }
        a.set("dim", axes);
        a.set("reduce_all", axes.empty() || attr<bool>(v, "reduce_all", false));
        copy(a, v, "keepdim", "keep_dim");
        copy(a, v, "keep_dim");
        if (is(kind::sum)) {
            // No dtype: "", "undefined" or Paddle 3's "Undefined(ALL_DTYPE)".
            const auto name = attr<std::string>(v, "dtype", "");
            if (auto t = dtype_of_name(name))
                a.set("out_dtype", std::int32_t{to_paddle_type(*t)});
            else if (!name.empty() && name != "undefined" && name.rfind("Undefined", 0) != 0)
                return keep_untranslated(v, "dtype is not one litegraph has");
        }
        a.set("decrease_to_0d", true);
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }
    void p_norm(op_view& v, const std::string& type) {
        attr_map a;
        for (auto k : {"porder", "axis", "epsilon", "keepdim", "asvector"}) copy(a, v, k);
        a.set("decrease_to_0d", true);
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }
    void cumsum(op_view& v, const std::string& type) {
        // Operands x, axis (a constant; absent: the attribute's default).
        attr_map a;
        for (auto k : {"flatten", "exclusive", "reverse"}) copy(a, v, k);
        if (in_val(v, 1) != op_view::npos) {
            // An integer constant, or a float `1.full` holding an integral value.
            auto axis = const_scalar(in_val(v, 1));
            if (!axis || *axis != std::floor(*axis) || std::fabs(*axis) > 1e9)
                return keep_untranslated(v, "axis is not an integer constant");
            a.set("axis", static_cast<std::int64_t>(*axis));
        }
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }
    void arg_max(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "keepdims");
        copy(a, v, "flatten");
        auto axis = const_ints(in_val(v, 1));
        if (!axis || axis->size() != 1) return keep_untranslated(v, "axis is not a constant");
        a.set("axis", axis->front());
        auto t = dtype_of_name(attr<std::string>(v, "dtype", "int64"));
        if (!t || (*t != dtype::i64 && *t != dtype::i32))
            return keep_untranslated(v, "dtype is neither int32 nor int64");
        a.set("dtype", std::int32_t{to_paddle_type(*t)});
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }
    void where(op_view& v, const std::string& type) {
        emit(v, type, {in_slot(v, "Condition", 0), in_slot(v, "X", 1), in_slot(v, "Y", 2)}, {"Out"},
             attr_map{});
    }
    void top_k(op_view& v, const std::string& type) {
        attr_map a;
        std::vector<slot_spec> ins{in_slot(v, "X", 0)};
        for (auto k : {"axis", "largest", "sorted"}) copy(a, v, k);
        if (auto c = const_ints(in_val(v, 1)); c && c->size() == 1)
            a.set("k", c->front());
        else if (in_val(v, 1) != op_view::npos)
            ins.push_back(in_slot(v, "K", 1));
        emit(v, type, ins, {"Out", "Indices"}, std::move(a));
    }
    void arg_sort(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "axis");
        copy(a, v, "descending");
        emit(v, type, {in_slot(v, "X", 0)}, {"Out", "Indices"}, std::move(a));
    }

    // ---- tensor ops (issue 17) ------------------------------------------------------------

    /// An int-list operand `k` (IntArray) into attribute `attr` when it is a
    /// constant, else slot `list` (a `0.combine` of scalars) or `one` (a
    /// tensor); false when it must be a constant and is not.
    bool int_array(const op_view& v, std::size_t k, attr_map& a, std::vector<slot_spec>& ins,
                   const char* attr, const char* list, const char* one) const {
        const auto vi = in_val(v, k);
        if (vi == op_view::npos) return true;
        if (auto c = const_ints(vi)) {
            a.set(attr, *c);
            return true;
        }
        if (values_[vi].k == value::kind::vec) {
            if (!list) return false;
            ins.push_back(list_slot(v, list, k));
            return true;
        }
        if (!one) return false;
        ins.push_back(in_slot(v, one, k));
        return true;
    }
    /// A one-integer operand `k` into attribute "axis" when it is a constant,
    /// else slot `slot`.
    void scalar_axis(const op_view& v, std::size_t k, const char* slot, attr_map& a,
                     std::vector<slot_spec>& ins) const {
        if (auto c = const_ints(in_val(v, k)); c && c->size() == 1)
            a.set("axis", c->front());
        else if (in_val(v, k) != op_view::npos)
            ins.push_back(in_slot(v, slot, k));
    }

    void split(op_view& v, const std::string& type) {
        // The first PIR name (1.split) takes its sections as an operand, the
        // second (1.split_with_num) an attribute `num`.
        attr_map a;
        std::vector<slot_spec> ins{in_slot(v, "X", 0)};
        if (table_name(v.name) == ops::split::pir_names[0].pir) {
            if (!int_array(v, 1, a, ins, "sections", "SectionsTensorList", nullptr))
                return keep_untranslated(v, "sections is neither a constant nor a list of scalars");
            scalar_axis(v, 2, "AxisTensor", a, ins);
        } else {
            copy(a, v, "num");
            scalar_axis(v, 1, "AxisTensor", a, ins);
        }
        emit(v, type, ins, {"Out"}, std::move(a));
    }
    void unstack(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "axis");
        copy(a, v, "num");
        emit(v, type, {in_slot(v, "X", 0)}, {"Y"}, std::move(a));
    }
    void gather(op_view& v, const std::string& type) {
        attr_map a;
        std::vector<slot_spec> ins{in_slot(v, "X", 0), in_slot(v, "Index", 1)};
        if (type == ops::gather::paddle_types[0]) scalar_axis(v, 2, "Axis", a, ins);
        emit(v, type, ins, {"Out"}, std::move(a));
    }
    void tile(op_view& v, const std::string& type) {
        attr_map a;
        std::vector<slot_spec> ins{in_slot(v, "X", 0)};
        int_array(v, 1, a, ins, "repeat_times", "repeat_times_tensor", "RepeatTimes");
        emit(v, type, ins, {"Out"}, std::move(a));
    }
    void expand(op_view& v, const std::string& type) {
        attr_map a;
        std::vector<slot_spec> ins{in_slot(v, "X", 0)};
        int_array(v, 1, a, ins, "shape", "expand_shapes_tensor", "Shape");
        emit(v, type, ins, {"Out"}, std::move(a));
    }
    void expand_as(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "target_shape");
        emit(v, type, {in_slot(v, "X", 0), in_slot(v, "Y", 1)}, {"Out"}, std::move(a));
    }
    void pixel_shuffle(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "upscale_factor");
        copy(a, v, "data_format");
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }
    void channel_shuffle(op_view& v, const std::string& type) {
        attr_map a;
        copy(a, v, "groups");
        copy(a, v, "data_format");
        emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
    }
    void pad3d(op_view& v, const std::string& type) {
        attr_map a;
        std::vector<slot_spec> ins{in_slot(v, "X", 0)};
        copy(a, v, "mode");
        copy(a, v, "pad_value", "value");
        copy(a, v, "data_format");
        if (!int_array(v, 1, a, ins, "paddings", nullptr, "Paddings"))
            return keep_untranslated(v, "paddings is a list of computed values");
        emit(v, type, ins, {"Out"}, std::move(a));
    }
    void full_like(op_view& v, const std::string& type) {
        // full_like(x, value): the fill value is an operand (a constant) or,
        // in older programs, an attribute; dtype "undefined" keeps x's.
        // full_batch_size_like: the value and the shape are attributes.
        const bool like = type == ops::fill_any_like::paddle_types[0];
        attr_map a;
        std::optional<double> value = attr<double>(v, "value", 0.0);
        if (like && in_val(v, 1) != op_view::npos) value = const_scalar(in_val(v, 1));
        if (!value) return keep_untranslated(v, "value is not a constant");
        a.set("value", *value);
        const auto dt = attr<std::string>(v, "dtype", like ? "undefined" : "float32");
        if (auto t = dtype_of_name(dt))
            a.set("dtype", std::int32_t{to_paddle_type(*t)});
        else if (!like || (dt != "undefined" && !dt.empty()))
            return keep_untranslated(v, "dtype '" + dt + "' is not one litegraph has");
        if (like) return emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        for (auto k : {"shape", "input_dim_idx", "output_dim_idx"}) copy(a, v, k);
        emit(v, type, {in_slot(v, "Input", 0)}, {"Out"}, std::move(a));
    }
    void full_with_tensor(op_view& v, const std::string& type) {
        // full_with_tensor(value, shape): the fill value (a constant folds to
        // the attribute) and the shape are operands.
        attr_map a;
        const auto dt = attr<std::string>(v, "dtype", "float32");
        const auto t = dtype_of_name(dt);
        if (!t) return keep_untranslated(v, "dtype '" + dt + "' is not one litegraph has");
        a.set("dtype", std::int32_t{to_paddle_type(*t)});
        if (auto c = const_scalar(in_val(v, 0))) {
            a.set("value", *c);
            return emit(v, type, {in_slot(v, "ShapeTensor", 1)}, {"Out"}, std::move(a));
        }
        emit(v, type, {in_slot(v, "ValueTensor", 0), in_slot(v, "ShapeTensor", 1)}, {"Out"},
             std::move(a));
    }
    void one_hot(op_view& v, const std::string& type) {
        // one_hot(x, num_classes): a constant num_classes becomes `depth`.
        attr_map a;
        if (auto d = const_scalar(in_val(v, 1))) {
            a.set("depth", static_cast<std::int64_t>(*d));
            return emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        emit(v, type, {in_slot(v, "X", 0), in_slot(v, "depth_tensor", 1)}, {"Out"}, std::move(a));
    }
    void set_value(op_view& v, const std::string& type) {
        // set_value_with_tensor_(x, values, starts, ends, steps): constant
        // bounds become attributes, the others tensor lists.
        attr_map a;
        for (auto k : {"axes", "decrease_axes", "none_axes"}) copy(a, v, k);
        std::vector<slot_spec> ins{in_slot(v, "Input", 0), in_slot(v, "ValueTensor", 1)};
        const char* names[] = {"starts", "ends", "steps"};
        const char* slots[] = {"StartsTensorList", "EndsTensorList", "StepsTensorList"};
        for (std::size_t k = 0; k < 3; ++k) {
            if (auto c = const_ints(in_val(v, k + 2)))
                a.set(names[k], *c);
            else
                ins.push_back(list_slot(v, slots[k], k + 2));
        }
        emit(v, type, ins, {"Out"}, std::move(a));
    }
    void arange(op_view& v, const std::string& type) {
        // Operands start, end, step (constants the shape is computed from);
        // range's output has start's dtype, which must be arange's.
        const auto dt = attr<std::string>(v, "dtype", "");
        const auto t = dtype_of_name(dt);
        const auto s0 = in_val(v, 0);
        if (t && s0 != op_view::npos && values_[s0].typed && values_[s0].type != *t)
            return keep_untranslated(v, "start is not of the dtype '" + dt + "'");
        emit(v, type, {in_slot(v, "Start", 0), in_slot(v, "End", 1), in_slot(v, "Step", 2)},
             {"Out"}, attr_map{});
    }

    // ---- detection ------------------------------------------------------------------------

    void prior_box(op_view& v, const std::string& type) {
        attr_map a;
        for (auto k : {"min_sizes", "max_sizes", "aspect_ratios", "variances", "flip", "clip",
                       "step_w", "step_h", "offset", "min_max_aspect_ratios_order"})
            copy(a, v, k);
        emit(v, type, {in_slot(v, "Input", 0), in_slot(v, "Image", 1)}, {"Boxes", "Variances"},
             std::move(a));
    }
    void density_prior_box(op_view& v, const std::string& type) {
        attr_map a;
        for (auto k : {"variances", "clip", "flatten_to_2d", "step_w", "step_h", "offset",
                       "densities", "fixed_sizes", "fixed_ratios"})
            copy(a, v, k);
        emit(v, type, {in_slot(v, "Input", 0), in_slot(v, "Image", 1)}, {"Boxes", "Variances"},
             std::move(a));
    }
    void box_coder(op_view& v, const std::string& type) {
        attr_map a;
        for (auto k : {"code_type", "box_normalized", "axis", "variance"}) copy(a, v, k);
        emit(v, type,
             {in_slot(v, "PriorBox", 0), in_slot(v, "PriorBoxVar", 1), in_slot(v, "TargetBox", 2)},
             {"OutputBox"}, std::move(a));
    }
};

}  // namespace litegraph::paddle::pir::detail
