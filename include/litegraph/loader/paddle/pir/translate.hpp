// The PIR loader's op translation: what each op of the top block becomes.
// The PIR name -> op type mapping is the ops' own (names.hpp): an op of
// pir_form::unary or ::binary needs no code here; the others have a
// translator below, registered for their op (`on<ops::conv2d>`), which folds
// operands that were attributes in the old op set (pool2d's kernel size,
// reshape's shape, scale's factor) from the constants that define them.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litegraph/loader/paddle/pir/resolve.hpp"
#include "litegraph/loader/paddle/pir/translate_ops.hpp"

namespace litegraph::paddle::pir::detail {

/// Reads a PIR program into a graph.
class reader final : public translators {
public:
    reader(std::string file, model& m) : translators(std::move(file), m) {}

private:
    using translator = void (translators::*)(op_view&, const std::string&);
    using table = std::map<std::string_view, translator, std::less<>>;

    /// Registers `f` for every PIR name of Op translated by code (pir_form::custom).
    template <class Op>
    static void on(table& t, translator f) {
        for (const auto& n : Op::pir_names)
            if (n.form == pir_form::custom) t.emplace(n.pir, f);
    }

    /// The translators of the pir_form::custom names, by PIR name.
    static const table& custom() {
        static const table t = [] {
            table r;
            on<ops::assign_value>(r, &reader::read_assign_value);
            on<ops::reshape2>(r, &reader::read_reshape);
            on<ops::conv2d>(r, &reader::conv);
            on<ops::conv2d_transpose>(r, &reader::conv_transpose);
            on<ops::batch_norm>(r, &reader::batch_norm);
            on<ops::layer_norm>(r, &reader::layer_norm);
            on<ops::prelu>(r, &reader::prelu);
            on<ops::clip>(r, &reader::clip);
            on<ops::pool2d>(r, &reader::pool2d);
            on<ops::conv3d>(r, &reader::conv3d);
            on<ops::pool3d>(r, &reader::pool3d);
            on<ops::gru>(r, &reader::gru);
            on<ops::crf_decoding>(r, &reader::crf_decoding);
            on<ops::sequence_softmax>(r, &reader::sequence_softmax);
            on<ops::sequence_expand>(r, &reader::sequence_expand);
            on<ops::im2sequence>(r, &reader::im2sequence);
            on<ops::ctc_align>(r, &reader::ctc_align);
            on<ops::flatten_contiguous_range>(r, &reader::flatten);
            on<ops::transpose2>(r, &reader::transpose);
            on<ops::squeeze2>(r, &reader::squeeze);
            on<ops::unsqueeze2>(r, &reader::unsqueeze);
            on<ops::matmul_v2>(r, &reader::matmul);
            on<ops::softmax>(r, &reader::softmax);
            on<ops::concat>(r, &reader::concat);
            on<ops::stack>(r, &reader::stack);
            on<ops::rnn>(r, &reader::rnn);
            on<ops::scale>(r, &reader::scale);
            on<ops::dropout>(r, &reader::dropout);
            on<ops::slice>(r, &reader::slice);
            on<ops::shape>(r, &reader::shape);
            on<ops::cast>(r, &reader::cast);
            on<ops::reduce>(r, &reader::reduce);
            on<ops::where>(r, &reader::where);
            on<ops::cumsum>(r, &reader::cumsum);
            on<ops::p_norm>(r, &reader::p_norm);
            on<ops::arg_max>(r, &reader::arg_max);
            on<ops::interp_v2>(r, &reader::interp);
            on<ops::grid_sampler>(r, &reader::grid_sample);
            on<ops::lookup_table_v2>(r, &reader::embedding);
            on<ops::split>(r, &reader::split);
            on<ops::unstack>(r, &reader::unstack);
            on<ops::gather>(r, &reader::gather);
            on<ops::gather_nd>(r, &reader::gather);
            on<ops::tile>(r, &reader::tile);
            on<ops::expand_v2>(r, &reader::expand);
            on<ops::expand_as_v2>(r, &reader::expand_as);
            on<ops::top_k>(r, &reader::top_k);
            on<ops::arg_sort>(r, &reader::arg_sort);
            on<ops::pixel_shuffle>(r, &reader::pixel_shuffle);
            on<ops::channel_shuffle>(r, &reader::channel_shuffle);
            on<ops::pad3d>(r, &reader::pad3d);
            on<ops::instance_norm>(r, &reader::instance_norm);
            on<ops::group_norm>(r, &reader::group_norm);
            on<ops::prior_box>(r, &reader::prior_box);
            on<ops::density_prior_box>(r, &reader::density_prior_box);
            on<ops::affine_channel>(r, &reader::affine_channel);
            on<ops::fill_any_like>(r, &reader::full_like);
            on<ops::fill_constant_batch_size_like>(r, &reader::full_like);
            on<ops::range>(r, &reader::arange);
            on<ops::box_coder>(r, &reader::box_coder);
            on<ops::fill_constant>(r, &reader::full_with_tensor);
            on<ops::one_hot_v2>(r, &reader::one_hot);
            on<ops::set_value>(r, &reader::set_value);
            return r;
        }();
        return t;
    }

public:
    /// Whether PIR name `name` (of op_table) has a translation: resolved at
    /// load, generic (unary, binary) or a translator (tests check every name).
    static bool translates(std::string_view name) {
        for (auto n : resolved_at_load)
            if (n == name) return true;
        const auto* e = find_entry(name);
        return e && (e->form != pir_form::custom || custom().count(name));
    }

private:
    void translate(op_view& v) override {
        // An in-place variant (`1.relu_`, `1.scale_`) computes the same values
        // (its result is a new value in PIR as well).
        const std::string n(table_name(v.name));
        if (n == "1.if" || n == "1.while" || n == "2.yield") return control_flow(v, n);
        if (is_control_flow(n) || n.rfind("2.", 0) == 0)
            return keep_untranslated(v, "control flow");
        if (!v.unknown_attr.empty() && n != "1.data" && n != "1.fetch")
            return keep_untranslated(
                v, "attribute '" + v.unknown_attr + "' has a tag litegraph does not read");
        if (resolve_at_load(v, n)) return;
        const auto* e = find_entry(n);
        if (!e) return keep_untranslated(v, "");
        const std::string type(e->type);
        if (e->form == pir_form::unary) {
            attr_map a;
            for (const auto& at : e->attrs) {
                auto it = v.attrs.find(std::string(at.pir));
                if (it != v.attrs.end() && !std::holds_alternative<std::monostate>(it->second))
                    a.set(std::string(at.as.empty() ? at.pir : at.as), it->second);
            }
            return emit(v, type, {in_slot(v, "X", 0)}, {"Out"}, std::move(a));
        }
        if (e->form == pir_form::binary) {
            attr_map a;
            a.set("axis", std::int32_t{-1});  // numpy broadcasting, trailing dims aligned
            return emit(v, type, {in_slot(v, "X", 0), in_slot(v, "Y", 1)}, {"Out"}, std::move(a));
        }
        const auto& t = custom();
        auto it = t.find(n);
        if (it == t.end()) return keep_untranslated(v, "");
        (this->*(it->second))(v, type);
    }

    /// `1.if` -> op `if` (Cond; results Out), `1.while` -> op `while` (Cond,
    /// X: the loop-carried values; results Out), `2.yield` -> the placeholder
    /// `litegraph_yield` (X).  blocks.hpp adds the values each block reads
    /// from outside (Input) and moves the blocks into graphs of their own.
    void control_flow(op_view& v, const std::string& n) {
        if (n == "2.yield") {
            slot_spec xs{"X", {}, {}, {}};
            for (std::size_t k = 0; k < v.in_vals.size(); ++k) {
                const auto vi = in_val(v, k);
                if (vi == op_view::npos) return keep_untranslated(v, "control flow: absent value");
                const auto& val = values_[vi];
                if (val.k == value::kind::none || val.k == value::kind::vec ||
                    (val.k == value::kind::tensor && !val.typed))
                    return keep_untranslated(v,
                                             "control flow: yields a value that is not a "
                                             "tensor litegraph computes");
                xs.vals.push_back(vi);
                xs.ids.push_back(v.in[k]);
                xs.paths.push_back(in_path(v, k));
            }
            std::vector<std::string> names;
            for (std::size_t i = 0; i < xs.vals.size(); ++i)
                names.push_back(tensor_var(xs.vals[i], xs.ids[i], xs.paths[i]));
            b_.add_op("litegraph_yield", {{"X", names}}, {}, {});
            note(v.name, "", "");  // the block's fetches (blocks.hpp)
            return;
        }
        const bool is_if = n == "1.if";
        if (v.blocks.size() != (is_if ? 2u : 1u))
            return keep_untranslated(v, std::string("control flow: ") + n + " with " +
                                            std::to_string(v.blocks.size()) + " blocks");
        if (!block_args_ok_)
            return keep_untranslated(v, "control flow: a block argument is not a tensor");
        for (auto vi : v.out_vals)
            if (values_[vi].k != value::kind::tensor || !values_[vi].typed)
                return keep_untranslated(v, "control flow: a result is not a tensor");
        if (is_if && v.in_vals.size() != 1)
            return keep_untranslated(v, "control flow: 1.if takes one condition");
        if (!is_if && v.in_vals.size() != v.out_vals.size() + 1)
            return keep_untranslated(v,
                                     "control flow: 1.while takes a condition and its "
                                     "loop-carried values");
        std::vector<slot_spec> ins{in_slot(v, "Cond", 0)};
        if (!is_if) {
            slot_spec xs{"X", {}, {}, {}};
            for (std::size_t k = 1; k < v.in_vals.size(); ++k) {
                xs.vals.push_back(in_val(v, k));
                xs.ids.push_back(v.in[k]);
                xs.paths.push_back(in_path(v, k));
            }
            ins.push_back(std::move(xs));
        }
        graph::named_slots in_names, outputs;
        for (auto& sl : ins) {
            std::vector<std::string> names;
            for (std::size_t i = 0; i < sl.vals.size(); ++i) {
                if (sl.vals[i] == op_view::npos)
                    return keep_untranslated(v, "control flow: absent operand");
                names.push_back(tensor_var(sl.vals[i], sl.ids[i], sl.paths[i]));
            }
            in_names.emplace_back(sl.slot, std::move(names));
        }
        std::vector<std::string> outs;
        for (std::size_t k = 0; k < v.out_vals.size(); ++k) {
            graph::named_slots one;
            declare_result(v, k, v.out_vals[k], "Out", one);
            for (auto& [slot, names] : one) outs.insert(outs.end(), names.begin(), names.end());
        }
        if (!outs.empty()) outputs.emplace_back("Out", std::move(outs));
        attr_map a;
        a.set("litegraph_blocks", std::vector<std::int64_t>(v.blocks.begin(), v.blocks.end()));
        const std::string type = is_if ? "if" : "while";
        b_.add_op(type, in_names, outputs, std::move(a));
        note(v.name, type, "");
    }
};

}  // namespace litegraph::paddle::pir::detail
