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
};

}  // namespace litegraph::paddle::pir::detail
