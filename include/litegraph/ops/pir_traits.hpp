// The PIR traits of an op: the Paddle 3.x (PIR) op names it is loaded from
// and, for the ops the PIR loader translates generically, the attributes it
// reads from them.  The loader's name table is derived from these
// (loader/paddle/pir/names.hpp), as the op table is derived from the op list:
//
//   struct my_op {
//       static constexpr std::string_view paddle_types[] = {"my_op"};
//       static constexpr pir_name pir_names[] = {{"1.my_op", "my_op", pir_form::unary}};
//       static constexpr pir_attr pir_attrs[] = {{"alpha"}, {"negative_slope", "slope"}};
//       ...
//   };
//
// An activation functor (ops/activation.hpp) declares `pir_type` (its PIR
// name, translated as pir_form::unary) and optionally `pir_attrs` instead.
#pragma once

#include <cstdint>
#include <string_view>

namespace litegraph {

/// How the PIR loader turns a PIR op into the op.
enum class pir_form : std::uint8_t {
    custom,  // a translator of the loader's own (loader/paddle/pir/translate.hpp): operands
             // folded from constants, several results, lists
    unary,   // operand 0 -> "X", result 0 -> "Out"; the attributes of `pir_attrs`
    binary,  // operands 0, 1 -> "X", "Y", result 0 -> "Out"; numpy broadcasting (axis -1)
};

/// One PIR op name an op is loaded from: `pir` ("1.hardswish") becomes op type
/// `type` (one of the op's paddle_types).  An in-place variant (`1.relu_`) takes
/// the name without the trailing underscore unless it is listed itself.
struct pir_name {
    std::string_view pir;
    std::string_view type;
    pir_form form = pir_form::custom;
};

/// An attribute a pir_form::unary op reads from the PIR op: PIR's name and the
/// op's (`as`, empty: the same name).
struct pir_attr {
    std::string_view pir;
    std::string_view as = {};
};

}  // namespace litegraph
