//! Per-language lexical data. Operators list only multi-byte tokens: any
//! other byte that starts no token is a one-byte operator by itself.
//!
//! To add a language: write its `LexSpec` here (start from `BASE` or a
//! similar language), add a row to the table in `lang.rs`, and add the
//! fixtures `a.*` (a program), `b.*` (the same program disguised: renamed,
//! literals changed, re-indented, reflowed, comments changed) and `c.*` (a
//! different program) under `tests/fixtures/lexer/<name>/`; the fixture
//! test fails for a code language without them. Its keyword set goes into
//! `tests/fixtures/keywords.tsv`, which pins every language's.

use super::spec::{LexSpec, PrefixKind, Quote, Tick, BASE};
use crate::SymbolClass;

use PrefixKind::{CppRaw, Plain, RustRaw};

const C_BLOCK: &[(&str, &str)] = &[("/*", "*/")];
const SLASH_LINE: &[&str] = &["//"];

const DQ: Quote = Quote::new("\"", "\"");
const SQ: Quote = Quote::new("'", "'");
const CHAR: Quote = Quote::new("'", "'").class(SymbolClass::Char);
const C_QUOTES: &[Quote] = &[DQ, CHAR];

const C_OPS: &[&str] = &[
    "->", "++", "--", "<<=", ">>=", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "...", "##",
];
const CPP_OPS: &[&str] = &[
    "->*", ".*", "::", "<=>", "->", "++", "--", "<<=", ">>=", "<<", ">>", "<=", ">=", "==", "!=",
    "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "...", "##",
];
const JAVA_OPS: &[&str] = &[
    ">>>=", ">>>", "->", "::", "++", "--", "<<=", ">>=", "<<", ">>", "<=", ">=", "==", "!=", "&&",
    "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "...",
];
const CS_OPS: &[&str] = &[
    "??=", "??", "?.", "=>", "::", "->", "++", "--", "<<=", ">>=", ">>>=", ">>>", "<<", ">>", "<=",
    ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "..",
];
const JS_OPS: &[&str] = &[
    ">>>=", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=", "...", "**", "=>", "?.",
    "??", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=",
    "&=", "|=", "^=",
];
const GO_OPS: &[&str] = &[
    "&^=", "<<=", ">>=", "...", ":=", "<-", "&^", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
    "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
];
const RUST_OPS: &[&str] = &[
    "..=", "...", "<<=", ">>=", "::", "->", "=>", "..", "<<", ">>", "<=", ">=", "==", "!=", "&&",
    "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
];
const KOTLIN_OPS: &[&str] = &[
    "===", "!==", "..<", "?.", "?:", "!!", "::", "..", "->", "++", "--", "<=", ">=", "==", "!=",
    "&&", "||", "+=", "-=", "*=", "/=", "%=",
];
const PY_OPS: &[&str] = &[
    "**=", "//=", ">>=", "<<=", "...", "**", "//", "->", ":=", "==", "!=", "<=", ">=", "<<", ">>",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
];
const PHP_OPS: &[&str] = &[
    "===", "!==", "<=>", "??=", "?->", "**=", "...", "<<=", ">>=", "->", "=>", "::", "??", "**",
    ".=", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "<>", "&&", "||", "+=", "-=", "*=", "/=",
    "%=", "&=", "|=", "^=",
];
const RUBY_OPS: &[&str] = &[
    "**=", "<=>", "===", "...", "||=", "&&=", "<<=", ">>=", "**", "=~", "!~", "..", "::", "&.",
    "=>", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=",
];
const PERL_OPS: &[&str] = &[
    "<=>", "**=", "||=", "&&=", "//=", "...", "=~", "!~", "->", "=>", "::", "**", "..", "//", "++",
    "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", ".=", "x=",
];
const BASH_OPS: &[&str] = &[
    "<<<", ";;&", "&&", "||", ";;", ";&", ">>", "<<", "&>", ">&", "<&", "|&", "==", "!=", "<=",
    ">=", "+=", "-=", "++", "--", "((", "))", "[[", "]]",
];
const SQL_OPS: &[&str] = &["<>", "<=", ">=", "!=", "||", "::", ":=", "=>", ".."];
const PASCAL_OPS: &[&str] = &[
    ":=", "<>", "<=", ">=", "..", "(.", ".)", "+=", "-=", "*=", "/=",
];
const ADA_OPS: &[&str] = &[":=", "=>", "..", "**", "/=", "<=", ">=", "<<", ">>", "<>"];
const FORTRAN_OPS: &[&str] = &["**", "//", "==", "/=", "<=", ">=", "::", "=>", "(/", "/)"];
const VHDL_OPS: &[&str] = &["<=", ":=", "=>", "/=", ">=", "**", "<>", "??"];
const VERILOG_OPS: &[&str] = &[
    "<<<=", ">>>=", "===", "!==", "<<<", ">>>", "<=", ">=", "==", "!=", "&&", "||", "<<", ">>",
    "~&", "~|", "~^", "^~", "**", "->", "+:", "-:", "::",
];
const M2_OPS: &[&str] = &[":=", "<=", ">=", "<>", ".."];
const MATLAB_OPS: &[&str] = &[
    "==", "~=", "<=", ">=", "&&", "||", ".*", "./", ".^", ".\\", ".'",
];
const R_OPS: &[&str] = &[
    "<<-", "->>", "%in%", "%/%", "%*%", "%o%", ":::", "<-", "->", "==", "!=", "<=", ">=", "&&",
    "||", "|>", "%%", "::",
];
const VB_OPS: &[&str] = &[
    "<>", "<=", ">=", ":=", "+=", "-=", "*=", "/=", "&=", "<<", ">>",
];
const SCHEME_OPS: &[&str] = &[",@", "#(", "#'", "#\\"];
/// Bytes that form user-defined operators in Haskell, ML, Scala, Swift and
/// Prolog (brackets and separators excluded).
const SYMBOLIC_OPS: &[u8] = b"!#$%&*+./<=>?@\\^|-~:";

// Keyword tables: whitespace-separated words, split once when a language's
// lexer is built (`LexSpec::keywords`). A language lists its tables, a base
// language's first: `keywords: &[JS_KW, TS_KW]`.

/// Keywords C and C++ share.
const C_CORE_KW: &str = "
    auto break case char const continue default do double else enum extern float for goto if inline
    int long register return short signed sizeof static struct switch typedef union unsigned void
    volatile while bool true false
";
/// C beyond the shared core: C11 keywords, `NULL`, preprocessor directives.
const C_KW: &str = "
    restrict _Bool _Complex _Atomic _Static_assert _Noreturn _Thread_local _Alignas _Alignof
    _Generic NULL #include #define #if #ifdef #ifndef #endif
";
/// C++ beyond the shared core.
const CPP_KW: &str = "
    alignas alignof and asm catch char16_t char32_t char8_t class constexpr consteval constinit
    const_cast co_await co_return co_yield decltype delete dynamic_cast explicit export friend
    mutable namespace new noexcept not nullptr operator or private protected public
    reinterpret_cast requires static_assert static_cast template this thread_local throw try typeid
    typename using virtual wchar_t override final
";
const JAVA_KW: &str = "
    abstract assert boolean break byte case catch char class const continue default do double else
    enum extends final finally float for goto if implements import instanceof int interface long
    native new package private protected public return short static strictfp super switch
    synchronized this throw throws transient try void volatile while true false null var record
    yield sealed permits
";
const CS_KW: &str = "
    abstract as base bool break byte case catch char checked class const continue decimal default
    delegate do double else enum event explicit extern false finally fixed float for foreach goto
    if implicit in int interface internal is lock long namespace new null object operator out
    override params private protected public readonly ref return sbyte sealed short sizeof
    stackalloc static string struct switch this throw true try typeof uint ulong unchecked unsafe
    ushort using virtual void volatile while var async await yield get set record
";
const JS_KW: &str = "
    break case catch class const continue debugger default delete do else export extends false
    finally for function if import in instanceof new null return super switch this throw true try
    typeof var void while with yield let static async await of undefined
";
/// TypeScript beyond JavaScript.
const TS_KW: &str = "
    interface type enum implements private protected public readonly abstract declare namespace
    keyof as is any number string boolean never unknown
";
const GO_KW: &str = "
    break case chan const continue default defer else fallthrough for func go goto if import
    interface map package range return select struct switch type var true false nil
";
const RUST_KW: &str = "
    as async await break const continue crate dyn else enum extern false fn for if impl in let loop
    match mod move mut pub ref return self Self static struct super trait true type unsafe use
    where while
";
const KOTLIN_KW: &str = "
    as break class continue do else false for fun if in interface is null object package return
    super this throw true try typealias val var when while catch finally import by constructor init
    companion data enum sealed open override private protected public internal abstract lateinit
    suspend
";
const SCALA_KW: &str = "
    abstract case catch class def do else extends false final finally for forSome if implicit
    import lazy match new null object override package private protected return sealed super this
    throw trait try true type val var while with yield given using enum then extension
";
const SWIFT_KW: &str = "
    associatedtype class deinit enum extension fileprivate func import init inout internal let open
    operator private protocol public static struct subscript typealias var break case continue
    default defer do else fallthrough for guard if in repeat return switch where while as catch
    false is nil rethrows super self Self throw throws true try async await
";
const PY_KW: &str = "
    False None True and as assert async await break class continue def del elif else except finally
    for from global if import in is lambda nonlocal not or pass raise return try while with yield
    self
";
const PHP_KW: &str = "
    abstract and array as break callable case catch class clone const continue declare default do
    echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile extends final
    finally fn for foreach function global goto if implements include include_once instanceof
    insteadof interface isset list match namespace new or print private protected public readonly
    require require_once return static switch throw trait try unset use var while xor yield true
    false null TRUE FALSE NULL
";
const RUBY_KW: &str = "
    BEGIN END alias and begin break case class def defined? do else elsif end ensure false for if
    in module next nil not or redo rescue retry return self super then true undef unless until when
    while yield puts require attr_accessor
";
const PERL_KW: &str = "
    my our local sub if elsif else unless while until for foreach last next redo return use no
    package require do eval print printf and or not xor eq ne lt gt le ge cmp undef defined
    wantarray shift push pop keys values each split join map grep sort scalar die BEGIN END
";
const BASH_KW: &str = "
    if then else elif fi case esac for select while until do done in function time return local
    export readonly declare echo exit shift break continue test read set unset source
";
const R_KW: &str = "
    if else repeat while function for next break TRUE FALSE NULL Inf NaN NA NA_integer_ NA_real_
    NA_character_ in return library
";
const SQL_KW: &str = "
    select from where insert into values update set delete create table drop alter add column index
    view primary key foreign references not null and or in is like between exists join inner left
    right full outer cross on using group by order having limit offset union all distinct as case
    when then else end asc desc default unique check constraint begin commit rollback transaction
    with recursive count sum avg min max integer int varchar char text date timestamp boolean true
    false
";
const PLSQL_KW: &str = "
    select from where insert into values update set delete create replace table drop alter not null
    and or in is like between exists join on group by order having union all distinct as case when
    then else elsif end if loop while for exit return begin declare exception raise procedure
    function package body cursor open fetch close commit rollback type record of out number
    varchar2 integer boolean date true false constant others found notfound rowtype execute
    immediate pragma trigger before after each row
";
const PASCAL_KW: &str = "
    and array asm begin case const constructor destructor div do downto else end file for function
    goto if implementation in inherited inline interface label mod nil not object of or packed
    procedure program record repeat set shl shr string then to type unit until uses var while with
    xor integer real boolean char true false writeln readln write read
";
const ADA_KW: &str = "
    abort abs abstract accept access aliased all and array at begin body case constant declare
    delay delta digits do else elsif end entry exception exit for function generic goto if in
    interface is limited loop mod new not null of or others out overriding package pragma private
    procedure protected raise range record rem renames requeue return reverse select separate some
    subtype synchronized tagged task terminate then type until use when while with xor integer
    boolean true false
";
const FORTRAN_KW: &str = "
    program end subroutine function module use implicit none integer real double precision complex
    logical character dimension parameter allocatable allocate deallocate intent in out inout if
    then else elseif endif do enddo while continue call return stop goto go to print write read
    format open close contains select case default exit cycle type common data save external
    intrinsic result recursive pure elemental where interface public private pointer target
    optional
";
const VHDL_KW: &str = "
    abs access after alias all and architecture array assert attribute begin block body buffer bus
    case component configuration constant disconnect downto else elsif end entity exit file for
    function generate generic group guarded if impure in inertial inout is label library linkage
    literal loop map mod nand new next nor not null of on open or others out package port postponed
    procedure process pure range record register reject rem report return rol ror select severity
    signal shared sla sll sra srl subtype then to transport type unaffected units until use
    variable wait when while with xnor xor std_logic std_logic_vector integer boolean rising_edge
";
const VERILOG_KW: &str = "
    always and assign automatic begin buf case casex casez default defparam else end endcase
    endfunction endgenerate endmodule endtask for forever function generate genvar if initial inout
    input integer localparam module nand negedge nor not or output parameter posedge real reg
    repeat signed task time tri wait while wire xnor xor logic always_ff always_comb
";
const ML_KW: &str = "
    and as assert begin class constraint do done downto else end exception external false for fun
    function functor if in include inherit initializer lazy let match method module mutable new
    nonrec object of open or private rec sig struct then to true try type val virtual when while
    with fn datatype structure signature local andalso orelse raise handle
";
const HS_KW: &str = "
    case class data default deriving do else foreign if import in infix infixl infixr instance let
    module newtype of then type where qualified hiding forall True False
";
const LISP_KW: &str = "
    defun defmacro defvar defparameter defconstant defstruct defclass defmethod lambda let let*
    flet labels if cond when unless case and or not progn prog1 setq setf loop do dolist dotimes
    return return-from block quote function funcall apply nil t car cdr cons list null eq eql equal
";
const SCHEME_KW: &str = "
    define define-syntax lambda let let* letrec letrec* if cond case and or not when unless begin
    do set! quote quasiquote unquote else => car cdr cons list null? eq? eqv? equal? call/cc
    call-with-current-continuation syntax-rules named-lambda delay force
";
const PROLOG_KW: &str = "
    is mod rem not fail true false call findall bagof setof assert asserta assertz retract atom
    number var nonvar write nl halt length append member
";
const MATLAB_KW: &str = "
    break case catch classdef continue else elseif end for function global if otherwise parfor
    persistent return spmd switch try while true false disp fprintf zeros ones size length numel
";
const MIPS_KW: &str = "
    add addu addi addiu sub subu mult multu div divu mfhi mflo and andi or ori xor xori nor sll srl
    sra sllv srlv srav slt sltu slti sltiu lw lh lhu lb lbu sw sh sb lui la li move beq bne bgez
    bgtz blez bltz blt bgt ble bge beqz bnez j jal jr jalr b syscall nop mul neg not .data .text
    .globl .word .byte .half .asciiz .ascii .space .align
";
const X86_KW: &str = "
    mov movsx movzx push pop add adc sub sbb mul imul div idiv inc dec neg not and or xor shl shr
    sal sar rol ror rcl rcr cmp test jmp je jne jz jnz jg jge jl jle ja jae jb jbe jc jnc jo jno js
    jns jcxz loop loope loopne call ret retf int iret lea lds les nop hlt cli sti cld std clc stc
    cmc lodsb lodsw stosb stosw movsb movsw cmpsb scasb rep repe repne in out xchg cbw cwd pushf
    popf segment ends proc endp end assume db dw dd equ org byte word ptr offset near far .model
    .stack .data .code section global
";
const SPICE_KW: &str = "
    .model .subckt .ends .tran .ac .dc .op .end .include .lib .param .options .print .plot .probe
    .control .endc .ic .meas .measure .temp .global dc ac pulse sin pwl dec oct lin
";
const VB_KW: &str = "
    addressof and andalso as boolean byref byte byval call case catch char class const date decimal
    declare dim do double each else elseif end enum erase error event exit false finally for friend
    function get goto handles if implements imports in inherits integer interface is let lib like
    long loop me mod module new next not nothing object on option optional or orelse private
    property protected public redim resume return select set shared short single static step stop
    string structure sub then throw to true try until variant wend when while with xor
";
const M2_KW: &str = "
    AND ARRAY BEGIN BY CASE CONST DEFINITION DIV DO ELSE ELSIF END EXIT EXPORT FOR FROM IF
    IMPLEMENTATION IMPORT IN LOOP MOD MODULE NOT OF OR POINTER PROCEDURE QUALIFIED RECORD REPEAT
    RETURN SET THEN TO TYPE UNTIL VAR WHILE WITH INTEGER CARDINAL BOOLEAN CHAR REAL TRUE FALSE NIL
";

const PY_PREFIXES: &[(&str, PrefixKind)] = &[
    ("r", Plain),
    ("u", Plain),
    ("b", Plain),
    ("f", Plain),
    ("R", Plain),
    ("U", Plain),
    ("B", Plain),
    ("F", Plain),
    ("br", Plain),
    ("rb", Plain),
    ("fr", Plain),
    ("rf", Plain),
    ("Br", Plain),
    ("bR", Plain),
    ("BR", Plain),
    ("Rb", Plain),
    ("rB", Plain),
    ("RB", Plain),
    ("Fr", Plain),
    ("fR", Plain),
    ("FR", Plain),
    ("Rf", Plain),
    ("rF", Plain),
    ("RF", Plain),
];
const CPP_PREFIXES: &[(&str, PrefixKind)] = &[
    ("L", Plain),
    ("u", Plain),
    ("U", Plain),
    ("u8", Plain),
    ("R", CppRaw),
    ("LR", CppRaw),
    ("uR", CppRaw),
    ("UR", CppRaw),
    ("u8R", CppRaw),
];

pub(crate) static C: LexSpec = LexSpec {
    ident_start: b"#",
    keywords: &[C_CORE_KW, C_KW],
    operators: C_OPS,
    line_comments: SLASH_LINE,
    block_comments: C_BLOCK,
    quotes: C_QUOTES,
    // C has no raw strings, but `.h` files are often C++: `R"(…)"` is
    // never valid C, so reading it as a raw string costs nothing.
    prefixes: CPP_PREFIXES,
    digit_tick: true,
    ..BASE
};

pub(crate) static CPP: LexSpec = LexSpec {
    keywords: &[C_CORE_KW, CPP_KW],
    operators: CPP_OPS,
    prefixes: CPP_PREFIXES,
    ..C
};

pub(crate) static JAVA: LexSpec = LexSpec {
    ident_start: b"$",
    keywords: &[JAVA_KW],
    operators: JAVA_OPS,
    line_comments: SLASH_LINE,
    block_comments: C_BLOCK,
    quotes: &[Quote::new("\"\"\"", "\"\"\"").multiline(), DQ, CHAR],
    ..BASE
};

pub(crate) static CSHARP: LexSpec = LexSpec {
    keywords: &[CS_KW],
    operators: CS_OPS,
    line_comments: SLASH_LINE,
    block_comments: C_BLOCK,
    quotes: &[
        Quote::new("\"\"\"", "\"\"\"").raw().multiline(),
        Quote::new("@\"", "\"").doubled().multiline(),
        Quote::new("$@\"", "\"").doubled().multiline().interp("{"),
        Quote::new("@$\"", "\"").doubled().multiline().interp("{"),
        Quote::new("$\"", "\"").interp("{"),
        DQ,
        CHAR,
    ],
    ..BASE
};

const JS_QUOTES: &[Quote] = &[DQ, SQ, Quote::new("`", "`").multiline().interp("${")];

pub(crate) static JAVASCRIPT: LexSpec = LexSpec {
    ident_start: b"$",
    keywords: &[JS_KW],
    operators: JS_OPS,
    line_comments: SLASH_LINE,
    block_comments: C_BLOCK,
    quotes: JS_QUOTES,
    regex: true,
    ..BASE
};

pub(crate) static TYPESCRIPT: LexSpec = LexSpec {
    keywords: &[JS_KW, TS_KW],
    ..JAVASCRIPT
};

pub(crate) static GO: LexSpec = LexSpec {
    keywords: &[GO_KW],
    operators: GO_OPS,
    line_comments: SLASH_LINE,
    block_comments: C_BLOCK,
    quotes: &[DQ, Quote::new("`", "`").raw().multiline(), CHAR],
    ..BASE
};

pub(crate) static RUST: LexSpec = LexSpec {
    keywords: &[RUST_KW],
    operators: RUST_OPS,
    line_comments: SLASH_LINE,
    block_comments: C_BLOCK,
    nested_comments: true,
    quotes: &[Quote::new("\"", "\"").multiline()],
    prefixes: &[
        ("b", Plain),
        ("c", Plain),
        ("r", RustRaw),
        ("br", RustRaw),
        ("cr", RustRaw),
    ],
    tick: Tick::CharOrTickIdent,
    ..BASE
};

pub(crate) static KOTLIN: LexSpec = LexSpec {
    keywords: &[KOTLIN_KW],
    operators: KOTLIN_OPS,
    line_comments: SLASH_LINE,
    block_comments: C_BLOCK,
    nested_comments: true,
    quotes: &[
        Quote::new("\"\"\"", "\"\"\"")
            .raw()
            .multiline()
            .interp("${"),
        Quote::new("\"", "\"").interp("${"),
        CHAR,
    ],
    ..BASE
};

pub(crate) static SCALA: LexSpec = LexSpec {
    keywords: &[SCALA_KW],
    operators: &["=>", "<-", "->", "<:", ">:", "::", "++"],
    op_run: SYMBOLIC_OPS,
    line_comments: SLASH_LINE,
    block_comments: C_BLOCK,
    nested_comments: true,
    quotes: &[
        Quote::new("\"\"\"", "\"\"\"")
            .raw()
            .multiline()
            .interp("${"),
        Quote::new("\"", "\"").interp("${"),
    ],
    tick: Tick::CharOrTickIdent,
    ..BASE
};

pub(crate) static SWIFT: LexSpec = LexSpec {
    keywords: &[SWIFT_KW],
    op_run: b"/=-+!*%<>&|^~?.",
    line_comments: SLASH_LINE,
    block_comments: C_BLOCK,
    nested_comments: true,
    quotes: &[
        Quote::new("#\"\"\"", "\"\"\"#").raw().multiline(),
        Quote::new("\"\"\"", "\"\"\"").multiline().interp("\\("),
        Quote::new("#\"", "\"#").raw(),
        Quote::new("\"", "\"").interp("\\("),
    ],
    ..BASE
};

pub(crate) static PYTHON: LexSpec = LexSpec {
    keywords: &[PY_KW],
    operators: PY_OPS,
    line_comments: &["#"],
    quotes: &[
        Quote::new("'''", "'''").multiline(),
        Quote::new("\"\"\"", "\"\"\"").multiline(),
        SQ,
        DQ,
    ],
    prefixes: PY_PREFIXES,
    ..BASE
};

pub(crate) static RUBY: LexSpec = LexSpec {
    heredoc: Some("<<"),
    keywords: &[RUBY_KW],
    operators: RUBY_OPS,
    sigils: b"@$",
    line_comments: &["#"],
    line_start_block: Some(("=begin", "=end")),
    end_markers: &["__END__"],
    regex: true,
    quotes: &[
        Quote::new("\"", "\"").multiline().interp("#{"),
        Quote::new("'", "'").multiline(),
        Quote::new("`", "`").multiline().interp("#{"),
    ],
    ..BASE
};

pub(crate) static PHP: LexSpec = LexSpec {
    heredoc: Some("<<<"),
    keywords: &[PHP_KW],
    operators: PHP_OPS,
    sigils: b"$",
    line_comments: &["//", "#"],
    block_comments: C_BLOCK,
    quotes: &[
        Quote::new("\"", "\"").multiline().interp("{$"),
        Quote::new("'", "'").multiline(),
        Quote::new("`", "`").multiline(),
    ],
    ..BASE
};

pub(crate) static PERL: LexSpec = LexSpec {
    heredoc: Some("<<"),
    keywords: &[PERL_KW],
    operators: PERL_OPS,
    sigils: b"$@%&",
    sigil_specials: b"!@/\\;,.&0_",
    line_comments: &["#"],
    line_start_block: Some(("=", "=cut")),
    end_markers: &["__END__", "__DATA__"],
    regex: true,
    quotes: &[
        Quote::new("\"", "\"").multiline(),
        Quote::new("'", "'").multiline(),
        Quote::new("`", "`").multiline(),
    ],
    ..BASE
};

pub(crate) static BASH: LexSpec = LexSpec {
    heredoc: Some("<<"),
    keywords: &[BASH_KW],
    operators: BASH_OPS,
    sigils: b"$",
    sigil_specials: b"#?@$!*-0123456789",
    line_comments: &["#"],
    comment_needs_word_start: true,
    quotes: &[
        Quote::new("\"", "\"").multiline().interp("$("),
        Quote::new("'", "'").raw().multiline(),
        Quote::new("`", "`").multiline(),
    ],
    ..BASE
};

pub(crate) static R: LexSpec = LexSpec {
    ident_start: b".",
    ident_cont: b".",
    keywords: &[R_KW],
    operators: R_OPS,
    line_comments: &["#"],
    quotes: &[
        Quote::new("\"", "\"").multiline(),
        Quote::new("'", "'").multiline(),
        Quote::new("`", "`").raw().class(SymbolClass::Identifier),
    ],
    ..BASE
};

const SQL_QUOTES: &[Quote] = &[
    Quote::new("'", "'").doubled().multiline(),
    Quote::new("\"", "\"")
        .doubled()
        .class(SymbolClass::Identifier),
    Quote::new("`", "`")
        .doubled()
        .class(SymbolClass::Identifier),
];

pub(crate) static SQL: LexSpec = LexSpec {
    case_insensitive: true,
    keywords: &[SQL_KW],
    operators: SQL_OPS,
    line_comments: &["--"],
    block_comments: C_BLOCK,
    quotes: SQL_QUOTES,
    ..BASE
};

pub(crate) static PLSQL: LexSpec = LexSpec {
    ident_cont: b"$#",
    keywords: &[PLSQL_KW],
    ..SQL
};

pub(crate) static PASCAL: LexSpec = LexSpec {
    case_insensitive: true,
    keywords: &[PASCAL_KW],
    operators: PASCAL_OPS,
    line_comments: SLASH_LINE,
    block_comments: &[("{", "}"), ("(*", "*)")],
    quotes: &[Quote::new("'", "'").doubled()],
    ..BASE
};

pub(crate) static ADA: LexSpec = LexSpec {
    case_insensitive: true,
    keywords: &[ADA_KW],
    operators: ADA_OPS,
    line_comments: &["--"],
    quotes: &[Quote::new("\"", "\"").doubled()],
    tick: Tick::CharOrOp,
    based_hash: true,
    ..BASE
};

pub(crate) static FORTRAN: LexSpec = LexSpec {
    case_insensitive: true,
    keywords: &[FORTRAN_KW],
    operators: FORTRAN_OPS,
    line_comments: &["!"],
    line_start_comments: &[
        "C ", "c ", "C\t", "c\t", "C\n", "c\n", "C\r", "c\r", "*", "C-", "c-", "C*", "c*", "C=",
    ],
    quotes: &[
        Quote::new("'", "'").doubled(),
        Quote::new("\"", "\"").doubled(),
    ],
    ..BASE
};

pub(crate) static VHDL: LexSpec = LexSpec {
    case_insensitive: true,
    keywords: &[VHDL_KW],
    operators: VHDL_OPS,
    line_comments: &["--"],
    block_comments: C_BLOCK,
    quotes: &[Quote::new("\"", "\"").doubled()],
    tick: Tick::CharOrOp,
    based_hash: true,
    ..BASE
};

pub(crate) static VERILOG: LexSpec = LexSpec {
    ident_start: b"$`",
    ident_cont: b"$",
    keywords: &[VERILOG_KW],
    operators: VERILOG_OPS,
    line_comments: SLASH_LINE,
    block_comments: C_BLOCK,
    quotes: &[DQ],
    tick: Tick::VerilogBase,
    ..BASE
};

pub(crate) static ML: LexSpec = LexSpec {
    ident_cont: b"'",
    keywords: &[ML_KW],
    operators: &["(", ")"],
    op_run: SYMBOLIC_OPS,
    block_comments: &[("(*", "*)")],
    nested_comments: true,
    quotes: &[
        Quote::new("\"", "\"").multiline(),
        Quote::new("{|", "|}").raw().multiline(),
    ],
    tick: Tick::CharOrTickIdent,
    ..BASE
};

pub(crate) static HASKELL: LexSpec = LexSpec {
    ident_cont: b"'",
    keywords: &[HS_KW],
    op_run: SYMBOLIC_OPS,
    line_comments: &["--"],
    block_comments: &[("{-", "-}")],
    nested_comments: true,
    quotes: &[Quote::new("\"", "\"").multiline()],
    tick: Tick::CharOrOp,
    ..BASE
};

const LISP_IDENT: &[u8] = b"-+*/<>=!?%&^~:.$@";

pub(crate) static LISP: LexSpec = LexSpec {
    case_insensitive: true,
    ident_start: LISP_IDENT,
    ident_cont: LISP_IDENT,
    keywords: &[LISP_KW],
    operators: SCHEME_OPS,
    line_comments: &[";"],
    block_comments: &[("#|", "|#")],
    nested_comments: true,
    quotes: &[Quote::new("\"", "\"").multiline()],
    ..BASE
};

pub(crate) static SCHEME: LexSpec = LexSpec {
    case_insensitive: false,
    keywords: &[SCHEME_KW],
    line_comments: &[";", "#;"],
    ..LISP
};

pub(crate) static PROLOG: LexSpec = LexSpec {
    keywords: &[PROLOG_KW],
    operators: &[
        ":-", "-->", "\\+", "=..", "\\==", "=:=", "=\\=", "==", "\\=", ">=", "=<",
    ],
    op_run: b"+-*/\\^<>=~:?@#&$",
    line_comments: &["%"],
    block_comments: C_BLOCK,
    quotes: &[
        Quote::new("\"", "\"").multiline(),
        Quote::new("'", "'").multiline(),
        Quote::new("`", "`").multiline(),
    ],
    ..BASE
};

pub(crate) static MATLAB: LexSpec = LexSpec {
    keywords: &[MATLAB_KW],
    operators: MATLAB_OPS,
    line_comments: &["%", "..."],
    block_comments: &[("%{", "%}")],
    nested_comments: true,
    quotes: &[Quote::new("\"", "\"").doubled()],
    tick: Tick::MatlabTranspose,
    ..BASE
};

pub(crate) static MIPS: LexSpec = LexSpec {
    case_insensitive: true,
    ident_start: b".$",
    keywords: &[MIPS_KW],
    line_comments: &["#"],
    quotes: &[DQ, CHAR],
    ..BASE
};

pub(crate) static A8086: LexSpec = LexSpec {
    case_insensitive: true,
    ident_start: b"@?$.",
    keywords: &[X86_KW],
    line_comments: &[";"],
    quotes: &[
        Quote::new("'", "'").doubled(),
        Quote::new("\"", "\"").doubled(),
    ],
    ..BASE
};

pub(crate) static SPICE: LexSpec = LexSpec {
    case_insensitive: true,
    ident_start: b".",
    keywords: &[SPICE_KW],
    line_comments: &[";", "$ "],
    line_start_comments: &["*"],
    quotes: &[DQ, SQ],
    ..BASE
};

pub(crate) static VB: LexSpec = LexSpec {
    case_insensitive: true,
    keywords: &[VB_KW],
    operators: VB_OPS,
    line_comments: &["'"],
    comment_words: &["rem"],
    quotes: &[Quote::new("\"", "\"").doubled()],
    ..BASE
};

pub(crate) static MODULA2: LexSpec = LexSpec {
    keywords: &[M2_KW],
    operators: M2_OPS,
    block_comments: &[("(*", "*)")],
    nested_comments: true,
    quotes: &[SQ.raw(), DQ.raw()],
    ..BASE
};
