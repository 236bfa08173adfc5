// The code generator's literals (firmware/codegen.hpp): how a form's fields,
// an activation functor, an epilogue stage and a firmware op's C++ type are
// spelled in a generated header, and which op of firmware::op_types a graph
// node is.  Desktop code (strings, exceptions): the generated header needs
// none of it.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/firmware/op_list.hpp"
#include "litegraph/firmware/patch_layers.hpp"
#include "litegraph/graph/graph.hpp"

namespace litegraph::firmware::codegen_detail {

/// A float as an exact C++ literal (hex float).
inline std::string float_literal(float v, const std::string& where) {
    if (!std::isfinite(v))
        throw unsupported_error(where + " holds a non-finite value, which a constexpr array " +
                                "cannot spell");
    if (v == 0.f) return std::signbit(v) ? "-0.f" : "0.f";
    char buf[48];
    std::snprintf(buf, sizeof buf, "%af", static_cast<double>(v));
    return buf;
}

inline std::string upper(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : (c == '-' ? '_' : c));
    return s;
}

inline bool is_identifier(const std::string& s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    return true;
}

/// The C++ name of a type that is no template (an op, a functor), as the
/// compiler spells it.
template <class T>
std::string type_name() {
    const std::string_view f = __PRETTY_FUNCTION__;  // "... [with T = NAME; ...]" / "[T = NAME]"
    const auto b = f.find("T = ") + 4;
    return std::string(f.substr(b, f.find_first_of(";]", b) - b));
}

/// The C++ literal of one field of a form (ops/firmware.hpp): integers,
/// flags, floats (exact), activation functors, epilogue stages, and nested
/// forms (anything with fields()) as aggregate initializers in field order.
struct literal_printer {
    std::string where;

    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(float v) const { return float_literal(v, where); }
    template <class T>
    requires std::is_integral_v<T> std::string operator()(T v) const { return std::to_string(v); }
    template <class T>
    requires requires(const T& t) { t.fields(); }
    std::string operator()(const T& v) const {
        std::string out;
        std::apply(
            [&](const auto&... f) { ((out += (out.empty() ? "" : ", ") + (*this)(f)), ...); },
            v.fields());
        if constexpr (requires { T::paddle_type; })
            return functor_type<T>() + "{" + out + "}";
        else
            return "{" + out + "}";
    }
    /// A functor without parameters.
    template <class T>
    requires(
        requires { T::paddle_type; } && !requires(const T& t) { t.fields(); }) std::string
    operator()(const T&) const {
        return functor_type<T>() + "{}";
    }
    /// A fixed array (a transpose's dims) as a braced list.
    template <class T, std::size_t N>
    std::string operator()(const std::array<T, N>& v) const {
        std::string out;
        for (const auto& e : v) out += (out.empty() ? "" : ", ") + (*this)(e);
        return "{" + out + "}";
    }
    /// An epilogue chain's stages.
    template <class... S>
    std::string operator()(const std::tuple<S...>& stages) const {
        std::string out;
        std::apply(
            [&](const auto&... st) { ((out += (out.empty() ? "" : ", ") + stage(st)), ...); },
            stages);
        return "{" + out + "}";
    }

    template <class F>
    static std::string functor_type() {
        return "litegraph::ops::act::" + std::string(F::paddle_type);
    }
    /// The C++ type of an epilogue stage.
    template <class S>
    static std::string stage_type() {
        const std::string fz = "litegraph::fusion::";
        if constexpr (detail_is_act<S>::value)
            return fz + "act<" + functor_type<typename detail_is_act<S>::functor>() + ">";
        else if constexpr (detail_is_gate<S>::value)
            return fz + "gate<" + functor_type<typename detail_is_gate<S>::functor>() + ", " + fz +
                   std::string(fusion::stage_name<typename detail_is_gate<S>::mul>()) + ">";
        else if constexpr (std::is_same_v<S, fusion::bias>)
            return fz + "bias";
        else if constexpr (std::is_same_v<S, fusion::rescale>)
            return fz + "rescale";
        else if constexpr (std::is_same_v<S, fusion::add_with>)
            return fz + "add_with";
        else {
            static_assert(std::is_same_v<S, fusion::quantize_store>,
                          "codegen: a stage kind without a C++ spelling");
            return fz + "quantize_store";
        }
    }
    /// A stage's initializer: its functor's parameters, its operands bound at run time.
    template <class S>
    std::string stage(const S& s) const {
        if constexpr (detail_is_act<S>::value)
            return stage_type<S>() + "{" + (*this)(s.f) + "}";
        else if constexpr (detail_is_gate<S>::value)
            return stage_type<S>() + "{" + (*this)(s.f) + ", {}}";
        else
            return stage_type<S>() + "{}";
    }

    template <class S>
    struct detail_is_act : std::false_type {};
    template <class F>
    struct detail_is_act<fusion::act<F>> : std::true_type {
        using functor = F;
    };
    template <class S>
    struct detail_is_gate : std::false_type {};
    template <class F, class M>
    struct detail_is_gate<fusion::gate<F, M>> : std::true_type {
        using functor = F;
        using mul = M;
    };
};

/// The C++ type of a firmware op: the fused kernels and the activations by
/// their template arguments, the others by name.
template <class Op>
struct op_spelling {
    static std::string get() { return type_name<Op>(); }
};
template <class F>
struct op_spelling<ops::activation<F>> {
    static std::string get() {
        return "litegraph::ops::activation<" + literal_printer::functor_type<F>() + ">";
    }
};
template <class... S>
struct op_spelling<fusion::fused<ops::conv2d, S...>> {
    static std::string get() {
        std::string t = "litegraph::fusion::fused<litegraph::ops::conv2d";
        ((t += ", " + literal_printer::stage_type<S>()), ...);
        return t + ">";
    }
};
template <class... S>
struct op_spelling<fusion::fused_int8<S...>> {
    static std::string get() {
        std::string t;
        ((t += (t.empty() ? "" : ", ") + literal_printer::stage_type<S>()), ...);
        return "litegraph::fusion::fused_int8<" + t + ">";
    }
};

/// f.template operator()<Op>() for the first firmware op that is this node
/// (its type, and for the fused kernels its stages: op_matches); false when
/// none is.
template <class... Ops, class F>
bool visit_firmware_op(op_list<Ops...>, const graph::op_node& node, F&& f) {
    return ((op_declares<Ops>(node.type) && op_matches<Ops>(node.attrs)
                 ? (f.template operator()<Ops>(), true)
                 : false) ||
            ...);
}

template <class Op>
struct is_activation_op : std::false_type {};
template <class F>
struct is_activation_op<ops::activation<F>> : std::true_type {};

/// The op types a firmware network can hold, for a message (the
/// activations as one).
template <class... Ops>
std::string firmware_types(op_list<Ops...>) {
    std::vector<std::string> names;
    ((is_activation_op<Ops>::value ||
              std::find(names.begin(), names.end(), op_type<Ops>()) != names.end()
          ? void()
          : names.push_back(op_type<Ops>())),
     ...);
    std::string out;
    for (auto& n : names) out += n + ", ";
    return out + "the activations";
}
}  // namespace litegraph::firmware::codegen_detail
