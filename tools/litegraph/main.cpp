// litegraph: the command-line front end (info, run, dot, plan, generate, codegen,
// quantize, ops).
#include <iostream>
#include <string>
#include <vector>

#include "cmd_codegen.hpp"
#include "cmd_dot.hpp"
#include "cmd_generate.hpp"
#include "cmd_info.hpp"
#include "cmd_ops.hpp"
#include "cmd_plan.hpp"
#include "cmd_quantize.hpp"
#include "cmd_run.hpp"

namespace {

const char* usage =
    "usage: litegraph COMMAND [ARGS] (COMMAND --help for its options)\n\n"
    "commands:\n"
    "  info MODEL        format, ops, feeds and fetches, parameters\n"
    "  run MODEL         run on given or deterministic inputs; outputs, latency, memory\n"
    "  dot MODEL         the graph as Graphviz DOT (after any pass)\n"
    "  plan MODEL        the memory plan over segments, against its lower bound\n"
    "  generate NAME     write a built-in example model (squeezenet1_0, squeezenet1_1,\n"
    "                    activations)\n"
    "  codegen MODEL     write the model as a compile-time network header (firmware)\n"
    "  quantize MODEL    post-training int8 quantisation (quantize_linear form)\n"
    "  ops               the op types a model may contain (Paddle and PIR names)\n";

int dispatch(const std::string& cmd, const std::vector<std::string>& rest) {
    using namespace litegraph::cli;
    if (cmd == "info") return cmd_info(rest);
    if (cmd == "run") return cmd_run(rest);
    if (cmd == "dot") return cmd_dot(rest);
    if (cmd == "plan") return cmd_plan(rest);
    if (cmd == "generate") return cmd_generate(rest);
    if (cmd == "codegen") return cmd_codegen(rest);
    if (cmd == "quantize") return cmd_quantize(rest);
    if (cmd == "ops") return cmd_ops(rest);
    throw litegraph::usage_error("unknown command '" + cmd + "'\n" + usage);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << usage;
        return 2;
    }
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::cout << usage;
        return 0;
    }
    try {
        return dispatch(args[0], {args.begin() + 1, args.end()});
    } catch (const litegraph::usage_error& e) {
        std::cerr << "litegraph: " << e.what() << "\n";
        return 2;
    } catch (const litegraph::error& e) {
        std::cerr << "litegraph: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "litegraph: internal error: " << e.what() << "\n";
        return 1;
    }
}
