// Must not compile: a bias after an activation is not a legal epilogue chain.
#include "litegraph/fusion/fused.hpp"

using namespace litegraph;
using bad = fusion::fused<ops::conv2d, fusion::act<ops::act::relu>, fusion::bias>;
bad::chain_type instance{};
