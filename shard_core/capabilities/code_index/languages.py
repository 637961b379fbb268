"""Languages the index knows: file suffix → grammar, and one tree-sitter query per grammar.

Each query marks a definition as `@def.<kind>` with its `@name`, and a reference (a call, a
constructed or named type, a base class) as `@ref`. The grammars come bundled in
`tree-sitter-language-pack` <1 (1.x fetches them over the network at first use).
"""

from __future__ import annotations

from functools import cache

from tree_sitter import Language, Parser, Query
from tree_sitter_language_pack import get_language, get_parser

_PYTHON = """
(function_definition name: (identifier) @name) @def.function
(class_definition name: (identifier) @name) @def.class
(call function: (identifier) @ref)
(call function: (attribute attribute: (identifier) @ref))
(class_definition superclasses: (argument_list (identifier) @ref))
(type (identifier) @ref)
"""

_JAVASCRIPT = """
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (_) @name) @def.class
(method_definition name: (property_identifier) @name) @def.method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])
  @def.function
(call_expression function: (identifier) @ref)
(call_expression function: (member_expression property: (property_identifier) @ref))
(new_expression constructor: (identifier) @ref)
"""

_TYPESCRIPT = (
    _JAVASCRIPT
    + """
(abstract_class_declaration name: (type_identifier) @name) @def.class
(interface_declaration name: (type_identifier) @name) @def.interface
(type_alias_declaration name: (type_identifier) @name) @def.type
(enum_declaration name: (identifier) @name) @def.enum
(function_signature name: (identifier) @name) @def.function
(method_signature name: (property_identifier) @name) @def.method
(abstract_method_signature name: (property_identifier) @name) @def.method
(type_annotation (type_identifier) @ref)
(extends_clause value: (identifier) @ref)
(implements_clause (type_identifier) @ref)
"""
)

_GO = """
(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name) @def.type
(call_expression function: (identifier) @ref)
(call_expression function: (selector_expression field: (field_identifier) @ref))
(type_identifier) @ref
"""

_RUST = """
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(union_item name: (type_identifier) @name) @def.struct
(trait_item name: (type_identifier) @name) @def.trait
(type_item name: (type_identifier) @name) @def.type
(mod_item name: (identifier) @name) @def.module
(macro_definition name: (identifier) @name) @def.macro
(const_item name: (identifier) @name) @def.constant
(call_expression function: (identifier) @ref)
(call_expression function: (field_expression field: (field_identifier) @ref))
(call_expression function: (scoped_identifier name: (identifier) @ref))
(macro_invocation macro: (identifier) @ref)
(type_identifier) @ref
"""

_JAVA = """
(class_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(record_declaration name: (identifier) @name) @def.class
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(method_invocation name: (identifier) @ref)
(object_creation_expression type: (type_identifier) @ref)
(type_identifier) @ref
"""

_C = """
(function_definition declarator: (function_declarator declarator: (identifier) @name))
  @def.function
(function_definition declarator: (pointer_declarator declarator:
  (function_declarator declarator: (identifier) @name))) @def.function
(struct_specifier name: (type_identifier) @name body: (_)) @def.struct
(union_specifier name: (type_identifier) @name body: (_)) @def.struct
(enum_specifier name: (type_identifier) @name body: (_)) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(preproc_function_def name: (identifier) @name) @def.macro
(call_expression function: (identifier) @ref)
(type_identifier) @ref
"""

_CPP = """
(function_definition declarator: (function_declarator declarator:
  [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)]
  @name)) @def.function
(function_definition declarator: (pointer_declarator declarator:
  (function_declarator declarator: (identifier) @name))) @def.function
(function_definition declarator: (reference_declarator
  (function_declarator declarator: (identifier) @name))) @def.function
(class_specifier name: (type_identifier) @name body: (_)) @def.class
(struct_specifier name: (type_identifier) @name body: (_)) @def.struct
(enum_specifier name: (type_identifier) @name body: (_)) @def.enum
(namespace_definition name: (namespace_identifier) @name) @def.module
(type_definition declarator: (type_identifier) @name) @def.type
(alias_declaration name: (type_identifier) @name) @def.type
(call_expression function: (identifier) @ref)
(call_expression function: (field_expression field: (field_identifier) @ref))
(call_expression function: (qualified_identifier name: (identifier) @ref))
(type_identifier) @ref
"""

_RUBY = """
(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method
(class name: (_) @name) @def.class
(module name: (_) @name) @def.module
(call method: (identifier) @ref)
(superclass (constant) @ref)
"""

_BASH = """
(function_definition name: (word) @name) @def.function
(command name: (command_name (word) @ref))
"""

_MARKDOWN = """
(atx_heading heading_content: (_) @name) @def.heading
(setext_heading heading_content: (_) @name) @def.heading
"""

QUERIES: dict[str, str] = {
    "python": _PYTHON,
    "javascript": _JAVASCRIPT,
    "typescript": _TYPESCRIPT,
    "tsx": _TYPESCRIPT,
    "go": _GO,
    "rust": _RUST,
    "java": _JAVA,
    "c": _C,
    "cpp": _CPP,
    "ruby": _RUBY,
    "bash": _BASH,
    "markdown": _MARKDOWN,
}

SUFFIXES: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".rb": "ruby",
    ".sh": "bash",
    ".bash": "bash",
    ".md": "markdown",
    ".markdown": "markdown",
}


def language_of(name: str) -> str | None:
    """The grammar for a file name, by suffix; None for files the index does not parse."""
    dot = name.rfind(".")
    return SUFFIXES.get(name[dot:].lower()) if dot >= 0 else None


@cache
def grammar(language: str) -> tuple[Parser, Query]:
    """The parser and compiled query for a language (compiled once per process)."""
    lang: Language = get_language(language)  # type: ignore[arg-type]
    return get_parser(language), Query(lang, QUERIES[language])  # type: ignore[arg-type]
