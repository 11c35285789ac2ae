// The sanitizer settings of every program of the sanitizer build, compiled in (the runtimes call
// these before main): stop at the first finding, check leaks at exit, print stacks. LSAN_OPTIONS'
// suppressions file may name GPU drivers only (tests/sanitize/lsan.supp); this build runs none.
extern "C" const char* __asan_default_options() {
  return "detect_leaks=1:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1";
}

extern "C" const char* __ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}
