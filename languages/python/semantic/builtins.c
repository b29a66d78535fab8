/*
 * builtins.c - the names every Python 3.11 module can read without binding
 * them: builtins.__dict__'s keys, and what the interpreter sets in modules
 * (__file__, __builtins__ ...), class bodies (__module__, __qualname__) and
 * methods (__class__).
 */
#include "sx_internal.h"

#include <stdlib.h>

static const char *const sx__builtins[] = {
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
    "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
    "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
    "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception",
    "ExceptionGroup", "False", "FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning",
    "GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError", "IndexError",
    "InterruptedError", "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError",
    "ModuleNotFoundError", "NameError", "None", "NotADirectoryError", "NotImplemented", "NotImplementedError",
    "OSError", "OverflowError", "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
    "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError", "RuntimeWarning",
    "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError", "SystemExit",
    "TabError", "TimeoutError", "True", "TypeError", "UnboundLocalError", "UnicodeDecodeError",
    "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning",
    "ValueError", "Warning", "ZeroDivisionError", "__annotations__", "__build_class__", "__builtins__",
    "__cached__", "__class__", "__debug__", "__dict__", "__doc__", "__file__", "__import__", "__loader__",
    "__module__", "__name__", "__package__", "__path__", "__qualname__", "__spec__", "abs", "aiter", "all",
    "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr",
    "classmethod", "compile", "complex", "copyright", "credits", "delattr", "dict", "dir", "divmod",
    "enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset", "getattr", "globals",
    "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len",
    "license", "list", "locals", "map", "max", "memoryview", "min", "next", "object", "oct", "open", "ord",
    "pow", "print", "property", "quit", "range", "repr", "reversed", "round", "set", "setattr", "slice",
    "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip",
};

static int sx__compare(const void *key, const void *item)
{
    const char *const *name = item;
    return strcmp(key, *name);
}

bool sx_is_builtin(const char *name, size_t len)
{
    char key[64];
    if (len >= sizeof key)
        return false;
    memcpy(key, name, len);
    key[len] = '\0';
    return bsearch(key, sx__builtins, sizeof sx__builtins / sizeof *sx__builtins, sizeof *sx__builtins, sx__compare) != NULL;
}

bool sx_builtin_has_prefix(const char *prefix, size_t len)
{
    for (size_t i = 0; i < sizeof sx__builtins / sizeof *sx__builtins; i++)
        if (strlen(sx__builtins[i]) >= len && memcmp(sx__builtins[i], prefix, len) == 0)
            return true;
    return false;
}
