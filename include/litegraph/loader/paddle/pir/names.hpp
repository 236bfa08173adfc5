// The PIR op names the loader knows, derived from the op list: each op
// declares the Paddle 3.x names it is loaded from (`pir_names[]`, an
// activation functor's `pir_type`, ops/pir_traits.hpp), as it declares its
// Paddle op types; the names the loader resolves itself (program inputs and
// outputs, constants, lists, aliases) are listed here.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "litegraph/ops/builtin_ops.hpp"

namespace litegraph::paddle::pir {

/// One PIR op name the loader translates.
struct op_entry {
    std::string_view name;  // the PIR name, e.g. "1.hardswish"
    std::string_view type;  // the op type it becomes; "" when the loader resolves it itself
    pir_form form = pir_form::custom;
    std::span<const pir_attr> attrs;  // pir_form::unary: the attributes it reads
};

namespace detail {

/// The PIR ops the loader resolves itself (resolve.hpp): program inputs and
/// outputs, constants folded at load (a `1.full` larger than max_folded_full
/// elements becomes a fill_constant), lists, aliases.
inline constexpr std::string_view resolved_at_load[] = {
    "1.data", "1.fetch", "1.full", "1.full_int_array", "0.combine", "0.split", "1.assign"};

/// Whether each PIR name of Op becomes one of Op's own types.
template <class Op>
consteval bool pir_types_are_declared() {
    for (const auto& n : Op::pir_names) {
        bool found = false;
        for (std::string_view t : Op::paddle_types) found = found || t == n.type;
        if (!found) return false;
    }
    return true;
}

template <class Op>
void add_pir_names(std::vector<op_entry>& t) {
    if constexpr (requires { Op::pir_names; }) {
        static_assert(pir_types_are_declared<Op>(),
                      "a pir_names entry names a type that is not in the op's paddle_types");
        std::span<const pir_attr> attrs;
        if constexpr (requires { Op::pir_attrs; }) attrs = Op::pir_attrs;
        for (const auto& n : Op::pir_names) t.push_back({n.pir, n.type, n.form, attrs});
    }
}

template <class... Ops>
std::vector<op_entry> op_entries_of(op_list<Ops...>) {
    std::vector<op_entry> t;
    for (auto n : resolved_at_load) t.push_back({n, "", pir_form::custom, {}});
    (add_pir_names<Ops>(t), ...);
    return t;
}

}  // namespace detail

/// Every PIR name the loader translates, in op-list order after the ones it
/// resolves itself.  An instance may still stay untranslated when an operand
/// that must be a constant is not one.
inline const std::vector<op_entry>& op_entries() {
    static const std::vector<op_entry> t = detail::op_entries_of(builtin_ops{});
    return t;
}

/// op_entries as pairs: PIR name -> the op type it becomes ("" when the loader
/// resolves it itself).
inline const std::vector<std::pair<std::string_view, std::string_view>>& op_table() {
    static const std::vector<std::pair<std::string_view, std::string_view>> t = [] {
        std::vector<std::pair<std::string_view, std::string_view>> r;
        for (const auto& e : op_entries()) r.emplace_back(e.name, e.type);
        return r;
    }();
    return t;
}

/// The entry of PIR name `name` (as op_table knows it), or nullptr.
inline const op_entry* find_entry(std::string_view name) {
    for (const auto& e : op_entries())
        if (e.name == name) return &e;
    return nullptr;
}

/// The name op_table knows PIR op `name` by: itself, or for an in-place variant
/// (`1.relu_`, `1.scale_`: the same values, its result a new value as well) the
/// name without the trailing underscore.
inline std::string_view table_name(std::string_view name) {
    if (!find_entry(name) && name.size() > 3 && name.back() == '_' &&
        find_entry(name.substr(0, name.size() - 1)))
        return name.substr(0, name.size() - 1);
    return name;
}

/// The op type PIR op `name` becomes (see op_table and table_name), or nothing.
inline std::optional<std::string_view> translated_type(std::string_view name) {
    if (const auto* e = find_entry(table_name(name))) return e->type;
    return std::nullopt;
}

}  // namespace litegraph::paddle::pir
