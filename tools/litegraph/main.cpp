// litegraph: the command-line front end (info, run, dot, plan, generate, codegen,
// quantize, ocr, ops).  Each command parses its own options with CLI11 (the shared
// ones are declared in options.hpp); this file names the commands.
#include <iostream>
#include <string>
#include <vector>

#include "cmd_codegen.hpp"
#include "cmd_dot.hpp"
#include "cmd_generate.hpp"
#include "cmd_info.hpp"
#include "cmd_ocr.hpp"
#include "cmd_ops.hpp"
#include "cmd_plan.hpp"
#include "cmd_quantize.hpp"
#include "cmd_run.hpp"
#include "litegraph/kernels/simd.hpp"

namespace {

struct command {
    const char* name;
    const char* args;
    const char* summary;
    int (*run)(const std::vector<std::string>&);
};

const command commands[] = {
    {"info", "MODEL", "format, ops, feeds and fetches, parameters", litegraph::cli::cmd_info},
    {"run", "MODEL", "run on given or deterministic inputs; outputs, latency, memory",
     litegraph::cli::cmd_run},
    {"dot", "MODEL", "the graph as Graphviz DOT (after any pass)", litegraph::cli::cmd_dot},
    {"plan", "MODEL", "the memory plan over segments, against its lower bound",
     litegraph::cli::cmd_plan},
    {"generate", "NAME",
     "write a built-in example model (squeezenet1_0, squeezenet1_1,\nactivations)",
     litegraph::cli::cmd_generate},
    {"codegen", "MODEL", "write the model as a firmware network header",
     litegraph::cli::cmd_codegen},
    {"quantize", "MODEL", "post-training int8 quantisation (quantize_linear form)",
     litegraph::cli::cmd_quantize},
    {"ocr", "IMAGE...", "read the text in pictures (detector, direction classifier,\nrecognizer)",
     litegraph::cli::cmd_ocr},
    {"ops", "", "the op types a model may contain (Paddle and PIR names)", litegraph::cli::cmd_ops},
};

std::string usage() {
    std::string u =
        "usage: litegraph COMMAND [ARGS] (COMMAND --help for its options)\n\n"
        "commands:\n";
    for (auto& c : commands) {
        std::string head = std::string("  ") + c.name + (*c.args ? " " : "") + c.args;
        head.resize(std::max<std::size_t>(head.size() + 1, 20), ' ');
        std::string summary = c.summary;
        for (std::size_t p = 0; (p = summary.find('\n', p)) != std::string::npos; p += 21)
            summary.insert(p + 1, 20, ' ');
        u += head + summary + "\n";
    }
    return u;
}

int dispatch(const std::string& cmd, const std::vector<std::string>& rest) {
    for (auto& c : commands)
        if (cmd == c.name) return c.run(rest);
    throw litegraph::usage_error("unknown command '" + cmd + "'\n" + usage());
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << usage();
        return 2;
    }
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::cout << usage();
        return 0;
    }
    // A LITEGRAPH_SIMD the program cannot honour (kernels/simd.hpp) stops
    // every command before it runs a kernel.
    if (const std::string& bad = litegraph::kernels::simd::check_env(); !bad.empty()) {
        std::cerr << "litegraph: " << bad << "\n";
        return 2;
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
