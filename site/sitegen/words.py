"""The words the site's hook writes itself, in each language: nav titles and a lesson page's own sections.

What a lesson page takes from the lesson (its README, quiz, code, pinned runs) is in the
files; what ``lesson_pages.py`` adds around them is here, so a zh or ja page reads in its
language from the first heading to the last. Code, file names and transcripts stay English.
"""

from __future__ import annotations

NAV = {
    "en": {"Home": "Home", "Start here": "Start here", "Lessons": "Lessons", "Appendix": "Appendix",
           "Build your own server": "Build your own server", "Use it on your own setup": "Use it on your own setup",
           "Limits": "Limits", "Glossary": "Glossary"},
    "zh": {"Home": "首页", "Start here": "从这里开始", "Lessons": "课程", "Appendix": "附录",
           "Build your own server": "编写自己的服务器", "Use it on your own setup": "用在你自己的环境里",
           "Limits": "限制", "Glossary": "术语表"},
    "ja": {"Home": "ホーム", "Start here": "はじめに", "Lessons": "レッスン", "Appendix": "付録",
           "Build your own server": "自分のサーバーを作る", "Use it on your own setup": "自分の環境で使う",
           "Limits": "上限", "Glossary": "用語集"},
}

PAGE = {
    "en": {
        "goal": "Goal",
        "viewer": "Step through the run",
        "viewer_intro": "The pinned run (below, under *Pinned run*), one event at a time. Beside it (below it on a "
                        "narrow screen): the tool pool the model was handed at that step, and from s23 on the "
                        "JSON-RPC frames up to that step; click a frame to see all of it. The arrow keys step too.",
        "quiz": "Check what you saw",
        "code": "Code",
        "run": "Pinned run",
        "run_intro": "Offline runs as the snapshot tests pin them, byte for byte; `default` is "
                     "`python lessons/{name}/code.py`. Long lines wrap; a wrapped line is indented.",
        "hint": "Hint",
        "solution": "Solution",
        "table": "| lesson | what it adds | new module |",
        "being_written": "*(being written)*",
        "planned": "*planned, not yet written:*",
    },
    "zh": {
        "goal": "目标",
        "viewer": "逐步查看运行",
        "viewer_intro": "固定的运行记录（见下方“固定运行记录”），一次一个事件。旁边（窄屏时在下方）是模型在这一步拿到的"
                        "工具池，从 s23 起还有到这一步为止的 JSON-RPC 帧；点击一帧可看完整内容。方向键也能逐步前进。",
        "quiz": "检查你看到的内容",
        "code": "代码",
        "run": "固定运行记录",
        "run_intro": "快照测试逐字节固定的离线运行；`default` 是 `python lessons/{name}/code.py`。"
                     "长行会折行，折行部分有缩进。",
        "hint": "提示",
        "solution": "参考答案",
        "table": "| 课程 | 添加了什么 | 新模块 |",
        "being_written": "*（正在编写）*",
        "planned": "*已计划，尚未编写：*",
    },
    "ja": {
        "goal": "目標",
        "viewer": "実行を一歩ずつ見る",
        "viewer_intro": "固定された実行記録（下の「固定された実行記録」）を、一度に一つのイベントずつ表示します。横（狭い画面では下）に、"
                        "そのステップでモデルに渡されたツールプールと、s23 以降はそのステップまでの JSON-RPC フレームが出ます。"
                        "フレームをクリックすると全体が見えます。矢印キーでも進めます。",
        "quiz": "見たものを確かめる",
        "code": "コード",
        "run": "固定された実行記録",
        "run_intro": "スナップショットテストがバイト単位で固定しているオフライン実行です。`default` は "
                     "`python lessons/{name}/code.py` です。長い行は折り返され、折り返した行は字下げされます。",
        "hint": "ヒント",
        "solution": "解答",
        "table": "| レッスン | 加えるもの | 新しいモジュール |",
        "being_written": "*（執筆中）*",
        "planned": "*計画済み、未執筆：*",
    },
}

# The caption over a quoted or included block: where it is from (``file`` already marked up as code).
SOURCE = {
    "en": {"one": "line {n}", "many": "lines {a}-{b}", "from": "From {file}, {where}{extra}:", "whole": "The whole of {file}:",
           "wire": ", printed as <code>--wire</code> prints them"},
    "zh": {"one": "第 {n} 行", "many": "第 {a}-{b} 行", "from": "来自 {file} {where}{extra}：", "whole": "{file} 的全文：",
           "wire": "，按 <code>--wire</code> 的格式打印"},
    "ja": {"one": "{n} 行目", "many": "{a}-{b} 行目", "from": "{file} の {where}{extra}：", "whole": "{file} の全体：",
           "wire": "（<code>--wire</code> の表示の形で）"},
}


def source(lang: str, file: str, first: int, last: int, extra: str = "") -> str:
    """``From `f`, lines 3-5:`` in ``lang``."""
    said = SOURCE[lang]
    where = said["one"].format(n=first) if first == last else said["many"].format(a=first, b=last)
    return said["from"].format(file=file, where=where, extra=extra)
