"""The command line in the GM's language: argparse's own texts (usage, section titles, usage
errors) and every verb's help text, in Japanese when ``--lang ja`` (or ``LANG``) says so.

Help texts are written in English where each verb is registered; ``HELP_JA`` holds their Japanese
rendering, and ``localize`` swaps them in over the whole parser tree."""
from __future__ import annotations

import argparse
import re

from rules_dsl.words import define_translations, define_word, translated, word

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Iterator

ARGPARSE_JA: dict[str, str] = {
    "usage: ": "使い方: ",
    "positional arguments": "位置引数",
    "options": "オプション",
    "optional arguments": "オプション",
    "show this help message and exit": "このヘルプを表示して終了します",
    "%(prog)s: error: %(message)s\n": "%(prog)s: エラー: %(message)s\n",
    "argument %(argument_name)s: %(message)s": "引数 %(argument_name)s: %(message)s",
    "the following arguments are required: %s": "次の引数が必要です: %s",
    "invalid choice: %(value)r (choose from %(choices)s)":
        "%(value)r は選べません（選べるもの: %(choices)s）",
    "invalid %(type)s value: %(value)r": "%(value)r は %(type)s の値として読めません",
    "unrecognized arguments: %s": "知らない引数です: %s",
    "expected one argument": "値を1つ指定してください",
    "expected at most one argument": "値は1つまでです",
    "expected at least one argument": "値を1つ以上指定してください",
    "ambiguous option: %(option)s could match %(matches)s":
        "オプション %(option)s があいまいです（候補: %(matches)s）",
    "not allowed with argument %s": "引数 %s と一緒には使えません",
    "one of the arguments %s is required": "引数 %s のどれか1つが必要です",
    "ignored explicit argument %r": "値 %r は受け付けません",
    "can't open '%(filename)s': %(error)s": "'%(filename)s' を開けません: %(error)s",
    "unknown parser %(parser_name)r (choices: %(choices)s)":
        "%(parser_name)r というコマンドはありません（選べるもの: %(choices)s）",
    "expected %s argument": "値を %s 個指定してください",
    "expected %s arguments": "値を %s 個指定してください",
}

# Messages of argparse type functions (``ArgumentTypeError``), matched by pattern (compiled
# when a usage error is shown, not at start-up).
TYPE_ERRORS: list[tuple[str, str]] = [
    (r"not a number: ('.*')", define_word("cli.not_a_number", r"not a number: \1", r"\1 は数ではありません")),
]

HELP_JA: dict[str, str] = {
    "do not use the cache of loaded rulesets (also: MPRULES_NO_CACHE=1)":
        "読み込んだルールセットのキャッシュを使わない（環境変数 MPRULES_NO_CACHE=1 でも同じ）",
    "roll or resolve the check nMPmCx (e.g. 3MP15C10), or its exact odds":
        "判定 nMPmCx（例: 3MP15C10）を振る・出目から解決する、またはその正確な確率を示す",
    "exact distribution of a rule's outcome, an expression ('2d6 >= 7') or a check (3MP15C10)":
        "ルールの結果・式（'2d6 >= 7'）・判定（3MP15C10）の正確な確率分布",
    "The check of BCDice notation nMPmCx: n dice against the value m, with the challenge value x; its rules come from the ruleset's parameters.core_check.":
        "BCDice の記法 nMPmCx の判定: 能力値 m に対して n 個のダイスを振り、チャレンジ値は x。判定の決まりはルールセットの parameters.core_check にあります。",
    "print the exact chances of success and of each special result":
        "成功と各特殊結果の正確な確率を表示する",
    "explain the result: one line per condition of the check":
        "結果を説明する（判定の条件ごとに1行）",
    "Rules interpreter for the MagicPunk TRPG optional rules":
        "『マジックパンクＴＲＰＧ』の追加ルールのためのルールインタプリタ",
    "show this help message and exit": "このヘルプを表示して終了します",
    "show program's version number and exit": "バージョンを表示して終了します",
    "language of messages (default: from LANG)": "メッセージの言語（既定: 環境変数 LANG から）",
    "show tracebacks of internal errors": "内部エラーのトレースバックを表示します",
    "output format": "出力形式",
    # validate
    "check rule files and rulesets (schema, expressions, tables)":
        "ルールファイルとルールセットを検査する（スキーマ、式、表）",
    "Check rule files and ruleset directories: YAML, schema, every expression, references between "
    "rules, roll table coverage. Without PATH: the bundled rulesets.":
        "ルールファイルとルールセットのディレクトリを検査します: YAML、スキーマ、すべての式、"
        "ルール間の参照、ロール表の抜けと重なり。PATH を省くと同梱のルールセットを検査します。",
    "rule files or ruleset directories": "ルールファイルまたはルールセットのディレクトリ",
    "ruleset directories or rule files": "ルールセットのディレクトリまたはルールファイル",
    "warnings count as findings (exit 1)": "警告も指摘として数えます（終了コード 1）",
    # init, schemas
    "make a house-rule repository (variant, example rule, editor, pre-commit, CI)":
        "ハウスルールのリポジトリを作る（派生ルールセット、ルールの例、エディタ、pre-commit、CI）",
    "Write a GM's house-rule repository into DIR: rules/house (a variant extending the bundled ruleset, "
    "an example rule with examples), schemas/ for editors, .vscode/settings.json, .pre-commit-config.yaml "
    "and .github/workflows/rules.yml. Existing files are never overwritten.":
        "DIR にＧＭのハウスルールのリポジトリを書きます: rules/house（同梱のルールセットを拡張する派生ルールセットと、"
        "例つきのルールの例）、エディタ用の schemas/、.vscode/settings.json、.pre-commit-config.yaml、"
        ".github/workflows/rules.yml。既にあるファイルは決して上書きしません。",
    "the directory to write (made when missing)": "書き込むディレクトリ（なければ作ります）",
    "show where the JSON Schemas are, or copy them (--copy DIR)":
        "JSON Schema の場所を表示する（--copy DIR でコピー）",
    "Print the directory of the installed JSON Schemas (rule.json for rule files, ruleset.json for "
    "ruleset.yaml). With --copy DIR, copy them into DIR, replacing older copies of the same files.":
        "インストールされた JSON Schema のディレクトリを表示します（ルールファイルには rule.json、ruleset.yaml には "
        "ruleset.json）。--copy DIR でそれらを DIR にコピーし、同じファイルの古いコピーを置き換えます。",
    "copy the schemas into DIR": "スキーマを DIR にコピーする",
    "skip the given YAML files that are not rule documents (what a pre-commit hook passes: every changed .yaml)":
        "与えた YAML のうちルール文書でないものを飛ばします（pre-commit のフックは変わった .yaml をすべて渡します）",
    "also show the warnings and notes of the bundled rulesets a path extends":
        "パスが拡張する同梱のルールセットの警告と注記も表示します",
    # test
    "run the examples embedded in rule documents": "ルール文書に書かれた例を実行する",
    "Run every document's examples (input, dice, expected value). Without PATH: the bundled "
    "rulesets.":
        "すべての文書の例（入力、ダイス、期待する値）を実行します。PATH を省くと同梱のルールセットを"
        "実行します。失敗と1行の集計だけを表示します（-v ですべての例）。",
    "show every example, not only failures": "失敗だけでなくすべての例を表示します",
    # run
    "run one rule on an input and explain the result": "入力に対してルールを1つ実行し、結果を説明する",
    "Run one rule of a ruleset on an input (YAML) and show its value and trace.":
        "ルールセットのルールを1つ入力（YAML）に対して実行し、値と計算の経過を表示します。",
    "ruleset directory (default: bundled)": "ルールセットのディレクトリ（既定: 同梱のもの）",
    "ruleset directory (default: the bundled one)": "ルールセットのディレクトリ（既定: 同梱のもの）",
    "ruleset directory (default: the bundled ruleset)": "ルールセットのディレクトリ（既定: 同梱のもの）",
    "the input as a YAML file, or - for stdin": "入力の YAML ファイル（- で標準入力）",
    "the rule's input as a YAML file (- for stdin)": "ルールの入力の YAML ファイル（- で標準入力）",
    "override one parameter for this run (repeatable)": "この実行だけパラメータを1つ変えます（複数可）",
    "roll the dice with this seed": "このシードでダイスを振ります",
    "roll with this seed": "このシードでダイスを振ります",
    "the dice rolled at the table, e.g. 3,4": "卓で振ったダイスの目（例: 3,4）",
    "the dice rolled at the table, e.g. 9,4,18": "卓で振ったダイスの目（例: 9,4,18）",
    # check
    "roll or resolve the core check nMPmCx (e.g. 3MP15C10), or its probability":
        "基本判定 nMPmCx（例: 3MP15C10）を振る・解決する、またはその確率を出す",
    "The core check: n dice against the ability value m, with the challenge value x "
    "(BCDice notation nMPmCx).":
        "基本判定: 能力値 m に対してダイスを n 個振り、挑戦値は x（BCDice の記法 nMPmCx）。",
    "e.g. 3MP15C10, MP12, 0MP15C5": "例: 3MP15C10、MP12、0MP15C5",
    "e.g. 3MP15C10, MP12, 0MP15C5, 3MP(10+5)C; BCDice's reading: a label may follow after a space "
    "('3MP15C10 label')":
        "例: 3MP15C10、MP12、0MP15C5、3MP(10+5)C。BCDice と同じ読み方で、空白のあとはラベルです"
        "（'3MP15C10 ラベル'）",
    "print the exact success probability": "成功の正確な確率を表示します",
    # eval
    "evaluate an expression, e.g. '2d6 + safety' --var safety=1":
        "式を評価する（例: '2d6 + safety' --var safety=1）",
    "Evaluate an expression of the rule language and show its value and dice.":
        "ルール言語の式を評価し、値と振ったダイスを表示します。-2d6 のように - で始まる式もそのまま書けます。",
    "a variable (YAML value); dotted names build mappings: item.quality=傑作":
        "変数（YAML の値）。点で区切った名前はマッピングになります: item.quality=傑作",
    "the expression, e.g. 2d6+1 or -1+2d6": "式（例: 2d6+1、-1+2d6）",
    # prob
    "exact distribution of a rule's outcome or of an expression, e.g. '2d6 >= 7'":
        "ルールの結果や式の正確な分布（例: '2d6 >= 7'）",
    "Exact probabilities (fractions, not sampling) of a rule or an expression.":
        "ルールまたは式の正確な確率（標本ではなく分数）を表示します。",
    "an input or variable (YAML value); dotted names build mappings":
        "入力または変数（YAML の値）。点で区切った名前はマッピングになります",
    "also draw the distribution as an SVG bar chart": "分布を SVG の棒グラフにも描きます",
    # diff
    "what a variant changes: rules, parameters, rows, and the probabilities that move":
        "ハウスルール（派生ルールセット）が変えるもの: ルール、パラメータ、行、動く確率",
    "Compare two rulesets (a base and a variant): rules added, removed and not adopted, every "
    "changed parameter and row, and for each probe input the exact probabilities (or values) that "
    "move.":
        "2つのルールセット（元と派生）を比べます: 追加・削除・不採用のルール、変わったパラメータと行、"
        "代表的な入力ごとに動く正確な確率（または値）。",
    "the base ruleset directory (e.g. rulesets/magipunk)": "元のルールセットのディレクトリ（例: rulesets/magipunk）",
    "the variant ruleset directory": "派生ルールセットのディレクトリ",
    # doc
    "a Japanese handout of the adopted rules (Markdown; --html)":
        "採用したルールのプレイヤー向け資料（Markdown、--html で HTML）",
    "Write a handout of a ruleset's adopted rules in Japanese, for the players: the texts in the "
    "source's words and order with every value filled in, the ruleset's interpretations marked, "
    "tables, probability bars for rolled rules, and a ★ on what a variant changed from its base "
    "(the ruleset it extends). --gm adds rule ids, parameters and formulas.":
        "ルールセットの採用ルールをプレイヤー向けの日本語の資料にします: 原文の言葉と順のままの本文"
        "（値はすべて埋めます）、ルールセットの解釈の印、表、ダイスを振るルールの確率の棒、派生"
        "ルールセットが元から変えたところには ★ を付けます。--gm でルール ID・パラメータ・式も載せます。",
    "the GM's handout: add rule ids, parameters and formulas":
        "ＧＭ向けの資料にします（ルール ID・パラメータ・式も載せます）",
    "a self-contained HTML page instead of Markdown": "Markdown の代わりに1枚で完結した HTML ページ",
    "write to FILE instead of standard output": "標準出力の代わりに FILE に書きます",
    "mark changes against this ruleset (default: the root of the variant's extends)":
        "このルールセットとの違いに印を付けます（既定: extends をたどった元のルールセット）",
    # export
    "write a roll table for BCDice or a chat palette for CCFOLIA":
        "ロール表を BCDice のオリジナル表に、判定を CCFOLIA のチャットパレットに書き出す",
    "Write what a GM pastes into an online table: a roll table rule as a BCDice original table "
    "(bcdice), or the ruleset's checks as a CCFOLIA chat palette (ccfolia), with abilities "
    "filled from a characters file.":
        "オンラインセッションに貼るものを書き出します: ロール表のルールを BCDice のオリジナル表に"
        "（bcdice）、ルールセットの判定を CCFOLIA のチャットパレットに（ccfolia）。能力値は"
        "キャラクターファイルから埋めます。",
    "a roll table rule as a BCDice original table": "ロール表のルールを BCDice のオリジナル表に",
    "the ruleset's checks as a CCFOLIA chat palette": "ルールセットの判定を CCFOLIA のチャットパレットに",
    "the id of a roll table rule": "ロール表のルールの id",
    "the table of the roll changed by N: line n gives the row of n + N":
        "出目を N 増減した表。n の行に n + N の行を書きます",
    "characters file (chars.yaml) whose abilities fill the palette":
        "能力値をパレットに埋めるキャラクターファイル（chars.yaml）",
    "write only this character's palette": "このキャラクターのパレットだけを書きます",
    # campaign
    "keep a campaign's deck, clock and briefings": "キャンペーンの山札・時刻・ブリーフィングを管理する",
    "the campaign file (SQLite)": "キャンペーンファイル（SQLite）",
    "seed of the shuffles and random choices": "シャッフルとランダムな選択のシード",
    "create a campaign: pin the ruleset, shuffle, place and deal the cards":
        "キャンペーンを作る: ルールセットを固定し、山札を切り、カードを置いて配る",
    "replace an existing file": "既存のファイルを置き換えます",
    "clock at the start (default: dawn)": "開始時刻（既定: 夜明け）",
    "adopt RULE in this campaign; RULE=no leaves it out; recorded in the file":
        "このキャンペーンで RULE を採用します。RULE=no なら不採用。ファイルに記録されます",
    "leave RULE out of this campaign; recorded in the file":
        "このキャンペーンでは RULE を採用しません。ファイルに記録されます",
    "the clock, the deck, the discard pile and every holder's cards":
        "時刻、山札、捨て札、持ち主ごとのカード",
    "a character slept H hours": "キャラクターが H 時間眠った",
    "advance the clock to the next dawn": "次の夜明けまで時刻を進める",
    "discard and redraw some or all of a holder's cards": "持ち主のカードの一部または全部を捨てて引き直す",
    "take a rest package (short, medium, long)": "休息パッケージ（短・中・長）を取る",
    "advance the clock, applying each dawn it crosses": "時刻を進める。越えた夜明けごとに夜明けの処理をする",
    "record one use of a briefing option by a PC": "PC によるブリーフィングの選択肢の使用を1回記録する",
    "start a new briefing": "新しいブリーフィングを始めます",
    "the journal of commands": "コマンドの記録",
    "revert the last command": "最後のコマンドを取り消す",
    "the state as YAML (in the shape of chars.yaml)": "状態を YAML で書き出す（chars.yaml の形）",
    "pin the ruleset as it is on disk now": "ディスク上の今のルールセットで固定し直す",
    "check every page of the file and every journal entry (read only)":
        "ファイルの全ページと全記録を検査する（読むだけ）",
}

define_translations(ARGPARSE_JA)
define_translations(HELP_JA)


def use_language(lang: str) -> None:
    """argparse's own texts (usage, section titles, errors) in ``lang`` from now on."""
    argparse._ = lambda message: translated(message, lang)  # type: ignore[attr-defined]
    argparse.ngettext = lambda one, many, n: translated(one if n == 1 else many, lang)  # type: ignore[attr-defined]


def usage_error_text(message: str, lang: str) -> str:
    """A usage error with the messages of type functions (``not a number: 'abc'``) in ``lang``."""
    for pattern, replacement in TYPE_ERRORS:
        message = re.sub(pattern, word(replacement, lang), message)
    return message


def parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """``parser`` and every sub-command parser under it."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                yield from parsers(child)


def help_texts(parser: argparse.ArgumentParser) -> Iterator[str]:
    """Every help and description text of the parser tree (for the catalogue's test)."""
    for p in parsers(parser):
        if p.description:
            yield p.description
        for action in p._actions:
            if action.help and action.help is not argparse.SUPPRESS:
                yield action.help
            if isinstance(action, argparse._SubParsersAction):
                yield from (a.help for a in action._choices_actions if a.help)


def localize(parser: argparse.ArgumentParser, lang: str) -> None:
    """Swap every help text of the tree for its ``lang`` rendering (English as registered)."""
    for p in parsers(parser):
        if p.description:
            p.description = translated(p.description, lang)
        for action in p._actions:
            if action.help and action.help is not argparse.SUPPRESS:
                action.help = translated(action.help, lang)
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    if choice.help:
                        choice.help = translated(choice.help, lang)
