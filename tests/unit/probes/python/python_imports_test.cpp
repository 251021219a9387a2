// The interpreter's import rules modelled from files (probes/python/python_imports.hpp) on crafted
// installations: PYTHONPATH and the working directory, the user site and what disables it,
// pyvenv.cfg, Debian's dist-packages, .pth lines (paths, failing imports, editable finders), and
// the PathFinder's order of packages, modules and namespace portions. The same rules are held to
// real interpreters by tests/support/python_import_corpus.py.
#include "probes/python/python_imports.hpp"
#include "support/fixtures.hpp"
#include "util/path.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <string>

namespace cudacheck {
namespace {

using test::ScratchTree;

Environment variables(std::initializer_list<std::pair<std::string, std::string>> values) {
    Environment environment;
    for (const auto& [name, value] : values) environment.set(name, value);
    return environment;
}

// A stock CPython 3.12 installation under <tree>/base, and a virtual environment made from it.
struct Installation {
    ScratchTree tree;
    std::string base = tree.path() + "/base";
    std::string venv = tree.path() + "/env";
    std::string home = tree.path() + "/home";
    std::string cwd = tree.make_dir("work");
    Installation() {
        tree.write("base/bin/python3.12", "#!ELF stand-in\n", 0755);
        tree.write("base/lib/python3.12/os.py", "");
        tree.write("base/lib/python3.12/site.py", "# stock site.py\n");
        tree.make_dir("base/lib/python3.12/site-packages");
        tree.make_dir("home");
    }
    void make_venv(bool system_site) const {
        tree.write("env/pyvenv.cfg", fmt::format("home = {}/bin\ninclude-system-site-packages = {}\nversion = 3.12.1\n",
                                                 base, system_site ? "true" : "false"));
        tree.symlink(base + "/bin/python3.12", "env/bin/python");
        tree.make_dir("env/lib/python3.12/site-packages");
    }
    PythonEnvironment system() const {
        return {.kind = PythonKind::other,
                .prefix = base,
                .interpreter = base + "/bin/python3.12",
                .python_version = "3.12",
                .site_packages = {},
                .base_prefix = std::nullopt,
                .found_by = {},
                .problem = {}};
    }
    PythonEnvironment virtual_environment() const {
        return {.kind = PythonKind::venv,
                .prefix = venv,
                .interpreter = venv + "/bin/python",
                .python_version = "3.12.1",
                .site_packages = {},
                .base_prefix = base,
                .found_by = {},
                .problem = {}};
    }
    ImportModel model(const PythonEnvironment& python, Environment environment) const {
        if (!environment.get("HOME")) environment.set("HOME", home);
        return model_imports(
            python, ImportContext{.environment = environment, .current_directory = cwd, .set_uid = false, .root = {}});
    }
    std::string site(const std::string& prefix) const { return prefix + "/lib/python3.12/site-packages"; }
    std::string user_site() const { return home + "/.local/lib/python3.12/site-packages"; }
};

std::vector<std::string> paths(const ImportModel& model) {
    std::vector<std::string> out;
    for (const SysPathEntry& entry : model.sys_path) out.push_back(entry.path);
    return out;
}

std::ptrdiff_t position(const ImportModel& model, const std::string& path) {
    const std::vector<std::string> all = paths(model);
    const auto found = std::find(all.begin(), all.end(), path);
    return found == all.end() ? -1 : found - all.begin();
}

TEST(AbsolutePath, is_lexical_like_os_path_abspath) {
    EXPECT_EQ(sys::absolute_path("env/bin/python", "/home/u"), "/home/u/env/bin/python");
    EXPECT_EQ(sys::absolute_path("", "/home/u"), "/home/u");
    EXPECT_EQ(sys::absolute_path("../x/./y//z", "/home/u"), "/home/x/y/z");
    EXPECT_EQ(sys::absolute_path("/a/../../b", "/ignored"), "/b");
    EXPECT_EQ(sys::absolute_path("//net/x", "/"), "//net/x");
    EXPECT_EQ(sys::absolute_path("///x", "/"), "/x");
}

TEST(PythonImports, the_working_directory_then_pythonpath_then_the_standard_library_then_site_packages) {
    Installation installation;
    const std::string shared = installation.tree.make_dir("shared/old");
    const ImportModel model = installation.model(installation.system(), variables({{"PYTHONPATH", shared + "::rel"}}));
    ASSERT_TRUE(model.modelled) << model.why_not;
    const std::vector<std::string> expected{installation.cwd,
                                            shared,
                                            installation.cwd + "/rel",
                                            installation.base + "/lib/python312.zip",
                                            installation.base + "/lib/python3.12",
                                            installation.base + "/lib/python3.12/lib-dynload",
                                            installation.site(installation.base)};
    // The empty entry is the working directory again: PYTHONPATH's copy of it is a separate entry
    // (sys.path[0] is inserted after site has removed duplicates).
    std::vector<std::string> got = paths(model);
    got.erase(std::remove(got.begin() + 1, got.end(), installation.cwd), got.end());
    EXPECT_EQ(got, expected);
    EXPECT_EQ(model.sys_path[1].origin, PathOrigin::pythonpath);
    EXPECT_NE(std::find(model.variables.begin(), model.variables.end(), "PYTHONPATH=" + shared + "::rel"),
              model.variables.end());
}

TEST(PythonImports, pythonpath_shadows_the_installed_package) {
    Installation installation;
    installation.make_venv(false);
    installation.tree.write("env/lib/python3.12/site-packages/torch/__init__.py", "");
    const std::string stale = installation.tree.write("shared/old/torch/__init__.py", "");
    const ImportModel model = installation.model(installation.virtual_environment(),
                                                 variables({{"PYTHONPATH", installation.tree.path() + "/shared/old"}}));
    const ImportResolution torch = resolve_import(model, "torch");
    EXPECT_EQ(torch.kind, ImportKind::package);
    EXPECT_EQ(torch.file, stale);
    ASSERT_TRUE(torch.entry);
    EXPECT_EQ(model.sys_path[*torch.entry].origin, PathOrigin::pythonpath);
    // Without the variable the venv's own copy.
    const ImportModel plain = installation.model(installation.virtual_environment(), Environment());
    EXPECT_EQ(resolve_import(plain, "torch").file, installation.site(installation.venv) + "/torch/__init__.py");
}

TEST(PythonImports, safe_path_drops_the_working_directory) {
    Installation installation;
    const ImportModel model = installation.model(installation.system(), variables({{"PYTHONSAFEPATH", "1"}}));
    EXPECT_EQ(position(model, installation.cwd), -1);
}

TEST(PythonImports, the_user_site_comes_before_site_packages_unless_disabled) {
    Installation installation;
    installation.tree.make_dir("home/.local/lib/python3.12/site-packages");
    const ImportModel model = installation.model(installation.system(), Environment());
    EXPECT_TRUE(model.user_site_enabled);
    EXPECT_LT(position(model, installation.user_site()), position(model, installation.site(installation.base)));
    EXPECT_EQ(position(installation.model(installation.system(), variables({{"PYTHONNOUSERSITE", "1"}})),
                       installation.user_site()),
              -1);
    // PYTHONUSERBASE moves it.
    const std::string other = installation.tree.make_dir("ub/lib/python3.12/site-packages");
    const ImportModel moved =
        installation.model(installation.system(), variables({{"PYTHONUSERBASE", installation.tree.path() + "/ub"}}));
    EXPECT_NE(position(moved, other), -1);
    EXPECT_EQ(position(moved, installation.user_site()), -1);
    // A set-uid process never reads it.
    Environment environment = variables({{"HOME", installation.home}});
    const ImportModel set_uid =
        model_imports(installation.system(), ImportContext{.environment = environment,
                                                           .current_directory = installation.cwd,
                                                           .set_uid = true});
    EXPECT_FALSE(set_uid.user_site_enabled);
}

TEST(PythonImports, a_venv_without_system_site_packages_sees_neither_the_user_site_nor_the_bases) {
    Installation installation;
    installation.make_venv(false);
    installation.tree.make_dir("home/.local/lib/python3.12/site-packages");
    const ImportModel model = installation.model(installation.virtual_environment(), Environment());
    EXPECT_EQ(model.prefix, installation.venv);
    EXPECT_EQ(model.base_prefix, installation.base);
    EXPECT_NE(position(model, installation.site(installation.venv)), -1);
    EXPECT_EQ(position(model, installation.user_site()), -1);
    EXPECT_EQ(position(model, installation.site(installation.base)), -1);
}

TEST(PythonImports, a_venv_with_system_site_packages_puts_its_own_first_then_the_user_site_then_the_bases) {
    Installation installation;
    installation.make_venv(true);
    installation.tree.make_dir("home/.local/lib/python3.12/site-packages");
    const ImportModel model = installation.model(installation.virtual_environment(), Environment());
    const auto own = position(model, installation.site(installation.venv));
    const auto user = position(model, installation.user_site());
    const auto bases = position(model, installation.site(installation.base));
    EXPECT_NE(own, -1);
    EXPECT_LT(own, user);
    EXPECT_LT(user, bases);
}

TEST(PythonImports, a_pyvenv_cfg_without_the_key_includes_system_site_packages) {
    Installation installation;
    installation.make_venv(false);
    installation.tree.write("env/pyvenv.cfg", fmt::format("home = {}/bin\n", installation.base));
    const ImportModel model = installation.model(installation.virtual_environment(), Environment());
    EXPECT_NE(position(model, installation.site(installation.base)), -1);
}

TEST(PythonImports, debians_site_py_uses_dist_packages) {
    Installation installation;
    installation.tree.write("base/lib/python3.12/site.py",
                            "sitepackages.append(os.path.join(prefix, \"lib\", \"python3\", \"dist-packages\"))\n");
    const std::string local = installation.tree.make_dir("base/local/lib/python3.12/dist-packages");
    const std::string shared = installation.tree.make_dir("base/lib/python3/dist-packages");
    const ImportModel model = installation.model(installation.system(), Environment());
    EXPECT_TRUE(model.debian_site);
    EXPECT_LT(position(model, local), position(model, shared));
    EXPECT_EQ(position(model, installation.site(installation.base)), -1)
        << "Debian's non-venv Python does not read site-packages";
}

TEST(PythonImports, pth_lines_add_existing_paths_in_file_order_and_report_missing_ones) {
    Installation installation;
    const std::string site = installation.site(installation.base);
    const std::string extra = installation.tree.make_dir("extra");
    const std::string sideline = installation.tree.make_dir("sideline");
    installation.tree.write("base/lib/python3.12/site-packages/b.pth", "# comment\n\n" + extra + "\n");
    installation.tree.write("base/lib/python3.12/site-packages/a.pth",
                            installation.tree.path() + "/gone\n../../../../sideline  \n");
    const ImportModel model = installation.model(installation.system(), Environment());
    EXPECT_LT(position(model, sideline), position(model, extra)) << "a.pth is read before b.pth";
    EXPECT_LT(position(model, site), position(model, sideline));
    ASSERT_EQ(model.pth_problems.size(), 1u);
    EXPECT_TRUE(model.pth_problems[0].missing_path);
    EXPECT_EQ(model.pth_problems[0].line, 1);
    EXPECT_EQ(model.sys_path[static_cast<std::size_t>(position(model, sideline))].source, site + "/a.pth line 2");
}

TEST(PythonImports, a_failing_import_line_ends_its_pth_file) {
    Installation installation;
    const std::string later = installation.tree.make_dir("later");
    installation.tree.write("base/lib/python3.12/site-packages/broken.pth",
                            "import module_that_is_not_there\n" + later + "\n");
    installation.tree.write("base/lib/python3.12/site-packages/fine.pth", "import os; x = 1\n");
    const ImportModel model = installation.model(installation.system(), Environment());
    EXPECT_EQ(position(model, later), -1);
    ASSERT_EQ(model.pth_problems.size(), 1u);
    EXPECT_FALSE(model.pth_problems[0].missing_path);
    EXPECT_NE(model.pth_problems[0].why.find("module_that_is_not_there"), std::string::npos);
    // `import os` resolves (the standard library) and runs code the model does not follow.
    ASSERT_EQ(model.unmodelled.size(), 1u);
    EXPECT_NE(model.unmodelled[0].find("fine.pth line 1"), std::string::npos);
}

TEST(PythonImports, an_editable_finder_answers_after_the_path_and_loses_to_a_namespace_directory) {
    Installation installation;
    const std::string project = installation.tree.write("project/torch/__init__.py", "");
    installation.tree.write("base/lib/python3.12/site-packages/__editable__.torch-2.12.pth",
                            "import __editable___torch_2_12_finder; __editable___torch_2_12_finder.install()\n");
    installation.tree.write("base/lib/python3.12/site-packages/__editable___torch_2_12_finder.py",
                            "import sys\nMAPPING: dict[str, str] = {'torch': '" + installation.tree.path() +
                                "/project/torch', 'x\\'y': '" + installation.tree.path() + "'}\n");
    const ImportModel model = installation.model(installation.system(), Environment());
    ASSERT_EQ(model.finders.size(), 1u);
    EXPECT_EQ(model.finders[0].mapping.at("x'y"), installation.tree.path());
    EXPECT_TRUE(model.pth_problems.empty());
    const ImportResolution torch = resolve_import(model, "torch");
    EXPECT_EQ(torch.kind, ImportKind::editable);
    EXPECT_EQ(torch.file, project);
    ASSERT_NE(torch.finder, nullptr);
    // A directory named torch without __init__.py anywhere on the path is a namespace package,
    // which the PathFinder returns before the appended finder is asked.
    installation.tree.make_dir("work/torch");
    EXPECT_EQ(resolve_import(installation.model(installation.system(), Environment()), "torch").kind,
              ImportKind::namespace_package);
    // The mapping's target gone: a finding, and the import fails.
    std::filesystem::rename(installation.tree.path() + "/project", installation.tree.path() + "/moved");
    std::filesystem::remove(installation.cwd + "/torch");
    const ImportModel gone = installation.model(installation.system(), Environment());
    EXPECT_EQ(resolve_import(gone, "torch").kind, ImportKind::not_found);
    ASSERT_EQ(gone.pth_problems.size(), 1u);
    EXPECT_TRUE(gone.pth_problems[0].missing_path);
}

TEST(PythonImports, a_package_before_a_module_in_one_entry_and_the_first_entry_wins) {
    Installation installation;
    const std::string site = installation.site(installation.base);
    installation.tree.write("base/lib/python3.12/site-packages/cupy.py", "");
    const std::string package = installation.tree.write("base/lib/python3.12/site-packages/cupy/__init__.py", "");
    const std::string module = installation.tree.write("first/cupy.py", "");
    EXPECT_EQ(resolve_import(installation.model(installation.system(), Environment()), "cupy").file, package);
    const ImportModel model =
        installation.model(installation.system(), variables({{"PYTHONPATH", installation.tree.path() + "/first"}}));
    const ImportResolution cupy = resolve_import(model, "cupy");
    EXPECT_EQ(cupy.kind, ImportKind::module);
    EXPECT_EQ(cupy.file, module);
    DirectoryListings listings;
    EXPECT_EQ(resolve_import(model, "cupy", &listings).file, module) << "the listing cache gives the same answer";
}

TEST(PythonImports, namespace_portions_only_when_no_regular_package_exists) {
    Installation installation;
    const std::string a = installation.tree.make_dir("a/jax");
    const std::string b = installation.tree.make_dir("b/jax");
    const Environment environment({{"PYTHONPATH", installation.tree.path() + "/a:" + installation.tree.path() + "/b"}});
    const ImportResolution jax = resolve_import(installation.model(installation.system(), environment), "jax");
    EXPECT_EQ(jax.kind, ImportKind::namespace_package);
    EXPECT_EQ(jax.portions, (std::vector<std::string>{a, b}));
    installation.tree.write("base/lib/python3.12/site-packages/jax/__init__.py", "");
    EXPECT_EQ(resolve_import(installation.model(installation.system(), environment), "jax").kind, ImportKind::package);
}

TEST(PythonImports, pythonhome_without_a_standard_library_stops_the_interpreter) {
    Installation installation;
    const ImportModel model =
        installation.model(installation.system(), variables({{"PYTHONHOME", installation.tree.path() + "/nothing"}}));
    EXPECT_NE(model.fatal.find("init_fs_encoding"), std::string::npos) << model.fatal;
    const ImportModel fine = installation.model(installation.system(), variables({{"PYTHONHOME", installation.base}}));
    EXPECT_TRUE(fine.fatal.empty()) << fine.fatal;
}

TEST(PythonImports, an_unknown_version_or_a_broken_environment_is_not_modelled) {
    Installation installation;
    PythonEnvironment broken = installation.system();
    broken.problem = "/x/bin/python is a broken link or cannot be resolved";
    EXPECT_FALSE(installation.model(broken, Environment()).modelled);
    PythonEnvironment unknown = installation.system();
    unknown.python_version = "";
    const ImportModel model = installation.model(unknown, Environment());
    EXPECT_FALSE(model.modelled);
    EXPECT_EQ(resolve_import(model, "torch").kind, ImportKind::not_found);
}

TEST(ScriptInterpreter, reads_a_shebang_and_pips_long_path_launcher) {
    EXPECT_EQ(script_interpreter("#!/opt/env/bin/python3.12\n# -*- coding: utf-8 -*-\nimport re\n"),
              "/opt/env/bin/python3.12");
    EXPECT_EQ(script_interpreter("#!/usr/bin/python3 -s\n"), "/usr/bin/python3");
    EXPECT_EQ(script_interpreter("#!/bin/sh\n'''exec' \"/very/long path/bin/python\" \"$0\" \"$@\"\n' '''\n"),
              "/very/long path/bin/python");
    EXPECT_EQ(script_interpreter("\x7f"
                                 "ELF"),
              "");
    EXPECT_EQ(script_interpreter(""), "");
}

}  // namespace
}  // namespace cudacheck
