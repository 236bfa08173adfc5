// Must not compile: the gate writes the result, so nothing may follow it.
#include "litegraph/fusion/fused.hpp"

using namespace litegraph;
using bad =
    fusion::fused<ops::conv2d, fusion::bias, fusion::gate<ops::act::hard_sigmoid, fusion::mul_with>,
                  fusion::act<ops::act::relu>>;
bad::chain_type instance{};
