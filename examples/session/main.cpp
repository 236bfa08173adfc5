// The README's C++ program: a model run by name with litegraph::session (load,
// passes, plan; named inputs to named outputs).  usage: session MODEL INPUT.npy
#include <iostream>

#include "litegraph/core/npy.hpp"
#include "litegraph/paddle.hpp"

int main(int argc, char** argv) try {
    if (argc != 3) return std::cerr << "usage: session MODEL INPUT.npy\n", 2;
    litegraph::session s(argv[1]);  // a folder or a topology file
    auto outputs = s.run({{s.input_names().at(0), litegraph::load_npy(argv[2])}});
    for (const auto& [name, t] : outputs) {
        std::cout << name << " " << litegraph::to_string(t.shape());
        if (t.type() == litegraph::dtype::f32 && t.numel() > 0)
            std::cout << " first " << t.span<float>()[0];
        std::cout << "\n";
    }
} catch (const std::exception& e) {
    std::cerr << "session: " << e.what() << "\n";
    return 1;
}
