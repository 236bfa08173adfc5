// Legal fused compositions are types the compiler accepts and reasons about.
#include "litegraph/fusion/fused.hpp"
#include "litegraph/fusion/fused_int8.hpp"
#include "litegraph/ops/op.hpp"

#include <array>
#include <cstddef>
#include <string_view>

using namespace litegraph;
using namespace litegraph::fusion;

/// Whether fused type K's `stages` list (from its stage declarations) is `want`.
template <class K, std::size_t N>
constexpr bool stages_are(const std::array<std::string_view, N>& want) {
    return K::stage_set_type::names() == want;
}

using conv_relu = fused<ops::conv2d, bias, act<ops::act::relu>>;
using se_gate = fused<ops::conv2d, bias, gate<ops::act::hard_sigmoid, mul_plane>>;
using patent_gate = fused<ops::conv2d, bias, gate<ops::act::sigmoid, mul_with>>;
using residual = fused<ops::conv2d, bias, add_with>;

static_assert(op_definition<conv_relu> && op_definition<se_gate> && op_definition<residual>);
static_assert(stages_are<conv_relu>(std::array<std::string_view, 2>{"bias", "relu"}));
static_assert(stages_are<se_gate>(std::array<std::string_view, 3>{"bias", "hard_sigmoid",
                                                                  "mul_plane"}));
static_assert(stages_are<patent_gate>(std::array<std::string_view, 3>{"bias", "sigmoid",
                                                                      "mul_with"}));
static_assert(stages_are<residual>(std::array<std::string_view, 2>{"bias", "add_with"}));
static_assert(stage_name<mul_plane>() == "mul_plane" &&
              stage_name<act<ops::act::relu>>() == "relu");
static_assert(conv_relu::chain_type::has_bias && !conv_relu::chain_type::has_terminal);
static_assert(se_gate::chain_type::has_terminal);

// The int8 requantize epilogue is a chain of the same kind.
using int8_relu = fused_int8<act<ops::act::relu>, quantize_store>;
static_assert(op_definition<int8_relu> && int8_relu::int8_out);
static_assert(stages_are<int8_relu>(std::array<std::string_view, 4>{"rescale", "bias", "relu",
                                                                    "quantize_store"}));
static_assert(chain<rescale, bias, act<ops::act::relu>, quantize_store>::has_terminal);
static_assert(!fused_int8<gate<ops::act::hard_sigmoid, mul_plane>>::int8_out);

int main() {
    return 0;
}
