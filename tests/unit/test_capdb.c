/* Capability database: every family loads with the keys backends read, aliases, inheritance and
 * removal, each schema error (testdata/capdb/<case>/ with an `expect` line), --list-targets,
 * --print-caps, and a support matrix that matches research/capabilities.md. */
#include "harness.h"
#include "capdb/capdb_int.h"
#include "lower/lower.h"
#include "targets/target.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static CapDb *open_db(void) {
    char *dir = root_path("capability-db");
    const char *dirs[] = {dir};
    CapDb *db = capdb_open(dirs, 1);
    free(dir);
    cr_assert_not_null(db, "capability-db/ must load without errors");
    return db;
}

static const char *const families[] = {
    "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "gfx906", "gfx908", "gfx90a",
    "gfx942", "gfx1030", "gfx1100", "gfx1200", "vulkan1.1", "vulkan1.2", "vulkan1.3", "apple7", "apple8",
    "apple9", "x86_64", "x86_64-v3"};

/* A family's natural output file extension: the backend table's (backends.def, emits.def), the
 * one place it is stated since the database's output.kind/output.extension were removed. */
static const char *natural_ext(const CapTarget *t) {
    const Backend *b = backend_find(cap_backend(t));
    return b ? emit_extension(b->def) : NULL;
}

Test(capdb, every_family_loads_with_backend_keys) {
    CapDb *db = open_db();
    cr_assert_str_eq(capdb_target_names(db), "sm_60, sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a, gfx906, gfx908, "
                                             "gfx90a, gfx942, gfx1030, gfx1100, gfx1200, vulkan1.1, vulkan1.2, "
                                             "vulkan1.3, apple7, apple8, apple9, x86_64, x86_64-v3");
    for (size_t i = 0; i < ARRAY_LEN(families); i++) {
        const CapTarget *t = capdb_target(db, families[i]);
        cr_assert_not_null(t, "%s", families[i]);
        const char *be = cap_backend(t);
        cr_assert_not_null(natural_ext(t), "%s", families[i]);
        cr_assert_null(cap_str(t, "output.extension"), "%s", families[i]);
        cr_assert_gt(cap_int(t, "subgroup_width", 0), 0, "%s", families[i]);
        cr_assert_gt(cap_int(t, "max_block_dim", 0), 0, "%s", families[i]);
        cr_assert_gt(cap_int(t, "default_block_dim", 0), 0, "%s", families[i]);
        cr_assert_gt(cap_int(t, "max_shared_bytes", 0), 0, "%s", families[i]);
        bool llvm = !strcmp(be, "ptx") || !strcmp(be, "amdgpu") || !strcmp(be, "x86_64");
        cr_assert_eq(cap_str(t, "llvm.triple") != NULL, llvm, "%s", families[i]);
        cr_assert_eq(cap_str(t, "llvm.cpu") != NULL, llvm, "%s", families[i]);
        cr_assert_eq(cap_str(t, "ptx.isa") != NULL, !strcmp(be, "ptx"), "%s", families[i]);
        cr_assert_eq(cap_str(t, "amdgpu.code_object") != NULL, !strcmp(be, "amdgpu"), "%s", families[i]);
        cr_assert_eq(cap_str(t, "spirv.version") != NULL, !strcmp(be, "spirv") || !strcmp(be, "msl"), "%s", families[i]);
        cr_assert_eq(cap_str(t, "msl.version") != NULL, !strcmp(be, "msl"), "%s", families[i]);
    }
    capdb_close(db);
}

Test(capdb, exact_family_facts) {
    CapDb *db = open_db();
    const CapTarget *t = capdb_target(db, "h100");
    cr_assert_str_eq(cap_name(t), "sm_90");
    cr_assert_str_eq(cap_str(t, "llvm.triple"), "nvptx64-nvidia-cuda");
    cr_assert_str_eq(cap_str(t, "llvm.cpu"), "sm_90");
    cr_assert_str_eq(cap_str(t, "llvm.features"), "+ptx80");
    cr_assert_str_eq(cap_str(t, "ptx.isa"), "8.0");
    cr_assert_str_eq(cap_str(capdb_target(db, "sm_90a"), "ptx.sm"), "sm_90a");
    t = capdb_target(db, "mi300x");
    cr_assert_str_eq(cap_name(t), "gfx942");
    cr_assert_str_eq(cap_str(t, "llvm.triple"), "amdgcn-amd-amdhsa");
    cr_assert_str_eq(cap_str(t, "amdgpu.code_object"), "5");
    cr_assert_str_eq(natural_ext(t), ".hsaco");
    cr_assert_eq(cap_int(t, "subgroup_width", 0), 64);
    /* RDNA: wave64 by default (as Quadrants), wave32 with --cap=+wave32 (simt.wave32) */
    const CapTarget *rdna = capdb_target(db, "gfx1100");
    const char *const w32[] = {"+wave32"}, *const w64[] = {"-wave32"};
    cr_assert_eq(cap_int(rdna, "subgroup_width", 0), 64);
    cr_assert_eq(cap_subgroup_width(rdna, NULL, 0), 64);
    cr_assert_eq(cap_subgroup_width(rdna, w64, 1), 64);
    cr_assert_eq(cap_subgroup_width(rdna, w32, 1), 32);
    cr_assert_str_eq(cap_llvm_features(rdna, NULL, 0), "+wavefrontsize64");
    cr_assert_str_eq(cap_llvm_features(rdna, w32, 1), "+wavefrontsize32");
    cr_assert_eq(cap_subgroup_width(t, w32, 1), 64); /* gfx942: no simt.wave32 */
    t = capdb_target(db, "vulkan1.2");
    cr_assert_str_eq(cap_str(t, "spirv.version"), "1.5");
    cr_assert_str_eq(cap_str(t, "spirv.env"), "vulkan1.2");
    cr_assert_str_eq(cap_str(capdb_target(db, "vulkan1.3"), "spirv.version"), "1.6");
    cr_assert_str_eq(cap_str(capdb_target(db, "m1"), "msl.version"), "2.3.0");
    cr_assert_str_eq(natural_ext(capdb_target(db, "m1")), ".metal");
    t = capdb_target(db, "x86_64-v3");
    cr_assert_str_eq(cap_backend(t), "x86_64");
    cr_assert_str_eq(cap_str(t, "llvm.cpu"), "x86-64-v3");
    cr_assert_str_eq(cap_str(t, "llvm.triple"), "x86_64-unknown-linux-gnu");
    cr_assert_str_eq(natural_ext(t), ".o");
    cr_assert_null(cap_str(t, "no.such.key"));
    cr_assert_eq(cap_int(t, "no_such_int", 7), 7);
    const char *aliases[][2] = {{"h100", "sm_90"}, {"a100", "sm_80"}, {"mi300x", "gfx942"}, {"mi250x", "gfx90a"},
                                {"m1", "apple7"}, {"m2", "apple8"}, {"m3", "apple9"}};
    for (size_t i = 0; i < ARRAY_LEN(aliases); i++)
        cr_assert_str_eq(cap_name(capdb_target(db, aliases[i][0])), aliases[i][1]);
    cr_assert_null(capdb_target(db, "sm_100"));
    capdb_close(db);
}

Test(capdb, files_of_a_target_follow_extends) {
    CapDb *db = open_db();
    const char **files;
    int n = capdb_target_files(capdb_target(db, "sm_90"), &files);
    cr_assert_eq(n, 7);
    cr_assert_str_eq(files[0], "capability-db/sm_60.yaml");
    cr_assert_str_eq(files[6], "capability-db/sm_90.yaml");
    capdb_close(db);
}

Test(capdb, inheritance_and_removal) {
    char *dir = root_path("testdata/capdb-ok");
    RunResult r = run_qdc("--capdb-dir", dir, "--print-caps", "sm_80x", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "\nscopes: block device\n"), "%s", r.out); /* scopes.system unset */
    cr_assert_not_null(strstr(r.out, "\nadd      f32  global unsupported\n"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "\nadd      bf16 global native [test.add.bf16]\n"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "\nmin      i64  global native [atom.min.s64/u64]\n"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "\nmin      i64  shared unsupported\n"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "\nadd      f64  global native [atom.add.f64]\n"), "%s", r.out); /* inherited */
    run_free(&r);
    free(dir);
}

/* The first file of a name on the search path wins, and user directories come first (issue 20):
 * a user's sm_80.yaml shadows the shipped one, so its error is reported. */
Test(capdb, first_match_wins) {
    char *tmp = make_temp_dir();
    char *f = xasprintf("%s/sm_80.yaml", tmp);
    write_text(f, "this: is: not: loaded\n"); /* shadows the build-tree capability-db/sm_80.yaml */
    RunResult r = run_qdc("--capdb-dir", tmp, "--print-caps", "sm_80", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    char *want = xasprintf("%s:1:9: error[QD3001]: mapping values are not allowed in this context", f);
    cr_assert_not_null(strstr(r.err, want), "%s", r.err);
    free(f), free(want);
    run_free(&r);
    remove_tree(tmp);
    free(tmp);
}

/* Every testdata/capdb/<case>/ is a malformed database: exit 1 and the `expect` text on stderr. */
Test(capdb, schema_errors_are_located) {
    char *root = root_path("testdata/capdb");
    DIR *d = opendir(root);
    cr_assert_not_null(d);
    int cases = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char *dir = xasprintf("%s/%s", root, e->d_name), *ef = xasprintf("%s/expect", dir);
        char *expect = read_text(ef, NULL);
        cr_assert_not_null(expect, "%s has no expect file", dir);
        expect[strcspn(expect, "\n")] = 0;
        RunResult r = run_qdc("--capdb-dir", dir, "--list-targets", NULL);
        cr_expect_eq(r.status, 1, "%s: exit %d", e->d_name, r.status);
        cr_expect_not_null(strstr(r.err, expect), "%s: expected '%s' in:\n%s", e->d_name, expect, r.err);
        cr_expect_eq(r.out_len, 0, "%s: nothing on stdout", e->d_name);
        run_free(&r);
        free(expect), free(ef), free(dir);
        cases++;
    }
    closedir(d);
    free(root);
    cr_assert_geq(cases, 20);
}

Test(capdb, list_targets) {
    RunResult r = run_qdc("--list-targets", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    int lines = 0;
    for (char *p = r.out; (p = strchr(p, '\n')); p++) lines++;
    cr_assert_eq(lines, 23);
    cr_assert_not_null(strstr(r.out, "sm_90      ptx     h100      NVIDIA Hopper (H100)\n"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "x86_64     x86_64  -         x86-64 CPU (baseline)\n"), "%s", r.out);
    run_free(&r);
}

Test(capdb, print_caps_json) {
    RunResult r = run_qdc("--print-caps", "mi300x", "--format=json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *head = "{\"schema\":1,\"target\":\"gfx942\",\"files\":[\"capability-db/gfx906.yaml\",";
    cr_assert_eq(strncmp(r.out, head, strlen(head)), 0, "%s", r.out);
    cr_assert_not_null(strstr(r.out, "\"orders\":{\"rmw\":[\"relaxed\",\"acquire\",\"release\",\"acq_rel\",\"seq_cst\"],"));
    cr_assert_not_null(strstr(r.out, "\"llvm.triple\":\"amdgcn-amd-amdhsa\""));
    cr_assert_not_null(strstr(r.out, "\"limits.subgroup_width\":64"));
    cr_assert_not_null(strstr(r.out, "\"caps\":[\"coarse-grained-memory\"]"));
    cr_assert_not_null(strstr(r.out, "{\"op\":\"add\",\"dtype\":\"f32\",\"space\":\"global\",\"cell\":{\"status\":\"native\","
                                     "\"spelling\":\"global_atomic_add_f32\",\"source\":\"capability-db/gfx942.yaml:"), "%s", r.out);
    run_free(&r);
    r = run_qdc("--print-caps", "sm_100", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert_not_null(strstr(r.err, "unknown target 'sm_100'"));
    run_free(&r);
}

/* Rows compared with research/capabilities.md §1.1, §2.2-2.3, §3.1, §4, §5 and lowering.md §7. */
Test(capdb, support_matrix_matches_research) {
    RunResult r = run_qdc("--support-matrix", "--targets=sm_60,sm_80,sm_90,gfx90a,gfx942,vulkan1.2,apple7,x86_64",
                          "--format=md", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *rows[] = {
        "| op | dtype | sm_60 | sm_80 | sm_90 | gfx90a | gfx942 | vulkan1.2 | apple7 | x86_64 |",
        "| add | i32 | native | native | native | native | native | native | native | native |",
        "| add | i64 | native | native | native | native | native | unsupported; native with +int64-atomics | unsupported | native |",
        "| add | bf16 | CAS | CAS | native | CAS | CAS | unsupported | unsupported | CAS |",
        "| add | f16 | CAS | native | native | CAS | CAS | unsupported; native with +float16-atomic-add | unsupported | CAS |",
        "| add | f32 | native | native | native | CAS; native with +coarse-grained-memory | native | CAS; native with +float-atomic-add | CAS | CAS |",
        "| min | f32 | CAS | CAS | CAS | CAS | CAS | CAS; native with +float-atomic-min-max | CAS | CAS |",
        "| min | i32 | native | native | native | native; CAS at system scope | native; CAS at system scope | native | native | CAS |",
        "| xor | u64 | native | native | native | native | native | unsupported; native with +int64-atomics | unsupported | CAS; native if result unused |",
        "| mul | i32 | CAS | CAS | CAS | CAS | CAS | CAS | CAS | CAS |",
        "| inc | u32 | native | native | native | native | native | CAS | CAS | CAS |",
        "| exchange | f32 | native | native | native | native | native | native | native | native |",
        "| exchange | f16 | CAS | CAS | CAS | CAS | CAS | unsupported | unsupported | native |",
    };
    for (size_t i = 0; i < ARRAY_LEN(rows); i++) {
        char *line = xasprintf("\n%s\n", rows[i]);
        cr_expect_not_null(strstr(r.out, line), "missing row: %s", rows[i]);
        free(line);
    }
    cr_assert_not_null(strstr(r.out, "\n## shared memory\n"));
    run_free(&r);
    r = run_qdc("--support-matrix", "--targets=sm_80,nope", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert_not_null(strstr(r.err, "unknown target 'nope' in --targets"));
    run_free(&r);
}
