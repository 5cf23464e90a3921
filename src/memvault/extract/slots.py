"""The slot vocabulary: which statements are values of a slot, and how words become values.

A slot is a key with one current value per user (`report.format`, `notify.channel`);
writing it again makes a new version of the same memory. Extractors map what people say
onto slots with this registry, so that "短信", "SMS" and "text messages" all become
`notify.channel = "SMS"` and a later "改成邮件" updates the same slot.

A `SlotSpec` describes one slot in one of two ways (or both):

- enumerated values: canonical value → surface words in Chinese and English
  (`"XLSX": ("xlsx", "excel", "表格")`). Matching is case-insensitive; an ASCII word
  matches only as a whole word (so "csv" is not found in "csvkit"), a Chinese word as a
  substring. `cues` are topic words ("通知", "notification"); with `needs_cue` a value
  word counts only when a cue is in the same sentence ("email" alone is not a channel:
  "my email is a@b.c"), and `weak` words need a cue even when the slot does not.
- `patterns`: regular expressions with a named group `value` for open values (a city,
  an amount, a time), normalised by `parse` (returning None rejects the match).

Built-in slots (the registry `SLOTS`):

    notify.channel     email | SMS | push | phone | wechat | telegram | whatsapp | slack
                       | dingtalk | feishu | none
    report.format      CSV | XLSX | PDF | JSON | DOCX | Markdown | HTML
    reply.language     zh | en | ja | ko | fr | de | es
    reply.verbosity    concise | detailed   (concise clashes with reply.background=first)
    reply.background   first                ("先讲背景", "explain the background first")
    user.location      free text ("我住在杭州", "I live in Berlin")
    user.name          free text ("我叫…", "my name is …")
    user.budget        {"amount": 5000, "currency": "CNY", "period": "month"}
    medication.time    "HH:MM" ("每天上午十点吃药", "I take my meds at 10pm")
    work.hours         "HH:MM-HH:MM" ("工作时间是9点到6点", "I work 9 to 5")
    diet.restriction   vegetarian | vegan | halal | kosher | gluten_free | lactose_free
                       | low_carb | keto | pescatarian | flexitarian
    diet.goal          weight_loss | muscle_gain (transient: 90 days by default)

Extending it (for every extractor that uses the registry):

    from memvault.extract.slots import SLOTS, SlotSpec
    SLOTS.register(SlotSpec("ui.theme", "colour scheme of the UI",
                            values={"dark": ("dark mode", "深色", "暗色"),
                                    "light": ("light mode", "浅色")},
                            cues=("theme", "mode", "主题", "模式")))
    SLOTS.extend("notify.channel", values={"viber": ("viber",)})

Use `SLOTS.copy()` (or a new `SlotRegistry(BUILTIN)`) for a private vocabulary.

This module holds the built-in vocabulary; the machinery (SlotSpec, SlotRegistry) is in
memvault.extract.slotspec and the value parsers (parse_time, parse_money, …) are in
memvault.extract.slotvalues. Import any of them from here.
"""

from __future__ import annotations

from ..model import Kind
from .slotspec import SlotMatch, SlotRegistry, SlotSpec, word_regex
from .slotvalues import (
    AMOUNT,
    TIME_EN,
    TIME_ZH,
    cn_int,
    lang_of,
    language_name,
    parse_language,
    parse_money,
    parse_name,
    parse_place,
    parse_time,
    parse_time_range,
    show_money,
)

__all__ = ["AMOUNT", "BUILTIN", "SLOTS", "TIME_EN", "TIME_ZH", "SlotMatch", "SlotRegistry",
           "SlotSpec", "cn_int", "lang_of", "parse_money", "parse_name", "parse_place",
           "parse_time", "parse_time_range", "show_money", "word_regex"]

_ZH_PLACE = r"[^\s，。,.!?！？；;、]{1,20}?"
# The place ends where a time phrase starts ("I moved to Paris last week").
# An emoji or another symbol ends it too.
# Not a shift, a part of the day or a new team ("moved to nights", "moved to a new team").
# A town by its name, one word or a capitalised pair ("Leeds", "New York"), where the
# words after it are not a place's ("our new place in Lisbon is gorgeous").
_EN_TOWN = (r"(?-i:[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+)?)(?![\w'’\-])|"
            r"(?!(?:a|an|the|my|our)\b)(?-i:[a-z][\w'’\-]+)"
            r"(?=\s*(?:[,;!?]|\.(?:\s|$)|$|\s+(?:is|was|and|but|now|so|lol|for|with)\b|"
            r"[^\w\s'’\-]))")
_EN_PLACE = (r"(?!(?:nights?|days?|mornings?|evenings?|afternoons?|weekends?|weekdays?|"
             r"(?:the\s+)?(?:night|day|early|late|evening)\s+shifts?|part[- ]time|full[- ]time|"
             r"remote|hybrid|a\s+new\s+(?:team|role|job|position|department|project|shift|"
             r"schedule|manager|place|flat|apartment|house))\b)"
             r"[a-z][\w.'’\- ]{0,40}?(?=\s*(?:[,;!?]|[^\w\s.'’\-]|\.(?:\s|$)|$|\band\b|"
             r"\bbut\b|\bnow\b|\b(?:fyi|btw|lol|haha|tbh|rn|tho)\b|"
             r"\bwith\b|\bsince\b|\bfor\b|\bso\b|\bbecause\b|\bwhen\b|\bwhile\b|"
             r"\b(?:full|part)[- ]time\b|\bpermanently\b|"
             # a time said after the place ("…over the weekend", "…last mnth", "…on friday")
             r"\bafter\b|\bbefore\b|\b(?:last|this|next|past)\b|\bover\s+the\b|"
             r"\b(?:yesterday|today|tonight|recently)\b|\bon\s+(?:mon|tues|wednes|thurs|fri|"
             r"satur|sun)day\b|"
             r"\b(?:bc|cuz|cos|cause|coz)\b|"
             r"\b(?:a few|two|three|several)\s+\w+\s+ago\b|\bin\s+(?:19|20)\d\d\b|"
             # "moved to Denver in March", "… back in May"
             r"\b(?:in|back in|since|during)\s+(?:early\s+|late\s+)?(?:january|february|march|"
             r"april|may|june|july|august|september|october|november|december|spring|summer|"
             r"autumn|fall|winter)\b))")

# A name as said in English: a capitalised word, or initials ("J.P.", "A. J."), with a
# title before it if one is said ("Dr. Okafor").
_EN_NAME = r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?(?:[A-Z]\.(?:\s?[A-Z]\.)+|[A-Z][\w'-]*)"

BUILTIN: tuple[SlotSpec, ...] = (
    SlotSpec(
        "notify.channel", "how the user wants to receive notifications and reminders",
        values={"email": ("邮件", "电子邮件", "邮箱", "电邮", "email", "e-mail", "mail",
                          "emailing me"),
                "SMS": ("短信", "手机短信", "短消息", "sms", "text message", "texts",
                        "text me", "texting"),
                "push": ("推送", "app推送", "app 推送", "push", "push notification"),
                "phone": ("电话", "打电话", "phone call", "phone"),
                "wechat": ("微信", "wechat"), "telegram": ("telegram", "电报"),
                "whatsapp": ("whatsapp",), "slack": ("slack",),
                "dingtalk": ("钉钉", "dingtalk", "ding talk"),
                "feishu": ("飞书", "feishu", "lark"),
                "none": ()},
        cues=("通知", "提醒", "联系", "告知", "消息", "进度", "notify", "notification",
              "alert", "remind", "reminder", "contact", "updates", "reach me", "let me know",
              "keep me posted", "email me", "text me", "texting", "call me", "给我发", "发给我",
              "短信给我", "电话给我", "邮件给我", "微信给我", "消息给我", "发到", "发微信",
              "发短信", "发邮件", "打电话", "打我电话", "打我手机", "找我", "send to", "ping me",
              "message me", "no more", "notifs",
              # a channel used as a verb: "WhatsApp me", "以后有急事微信我"
              "whatsapp me", "slack me", "wechat me", "telegram me", "微信我", "钉钉我", "飞书我",
              "短信我"),
        needs_cue=True, none_value="none",
        labels={"zh": {"email": "邮件", "SMS": "短信", "push": "推送", "phone": "电话",
                       "wechat": "微信", "telegram": "Telegram", "whatsapp": "WhatsApp",
                       "slack": "Slack", "dingtalk": "钉钉", "feishu": "飞书"},
                "en": {"email": "email", "SMS": "SMS", "push": "push notifications",
                       "phone": "phone calls", "wechat": "WeChat", "telegram": "Telegram",
                       "whatsapp": "WhatsApp", "slack": "Slack", "dingtalk": "DingTalk",
                       "feishu": "Feishu (Lark)"}},
        templates={"en": "The user wants to be notified by {value}",
                   "zh": "用户希望通过{value}接收通知",
                   "en:none": "The user does not want any notifications",
                   "zh:none": "用户不希望接收任何形式的通知",
                   "en:negative": "The user does not want to be notified by {replaces}",
                   "zh:negative": "用户不希望通过{replaces}接收通知"}),
    SlotSpec(
        "report.format", "the file format for reports and exports",
        values={"CSV": ("csv", "逗号分隔"),
                "XLSX": ("xlsx", "xls", "excel", "表格", "电子表格", "spreadsheet"),
                "PDF": ("pdf",), "JSON": ("json",),
                "DOCX": ("docx", "word", "word 文档"),
                "Markdown": ("markdown", "md"), "HTML": ("html", "网页格式")},
        cues=("报表", "报告", "导出", "格式", "文件", "下载", "附件", "report", "export",
              "format", "file", "download", "attachment", "output"),
        weak=frozenset({"word", "表格", "md", "html", "excel", "spreadsheet", "json"}),
        templates={"en": "The user wants reports exported as {value}",
                   "zh": "用户希望报表导出为 {value}",
                   "en:negative": "The user does not want reports as {replaces}",
                   "zh:negative": "用户不希望报表导出为 {replaces}"}),
    SlotSpec(
        "reply.language", "the language the assistant should reply in",
        values={"zh": ("中文", "汉语", "普通话", "简体中文", "chinese", "mandarin"),
                "en": ("英文", "英语", "english"), "ja": ("日语", "日文", "japanese"),
                "ko": ("韩语", "韩文", "korean"), "fr": ("法语", "法文", "french"),
                "de": ("德语", "德文", "german"), "es": ("西班牙语", "spanish")},
        cues=("reply", "respond", "answer", "talk", "speak", "write", "communicate",
              "language", "switch to", "switch back to", "go back to", "回复", "回答", "交流",
              "说", "沟通", "语言", "用", "改回", "换回"),
        # any language said as the reply's ("answer in Portuguese", "用粤语回我"), beside
        # the seven named above: a name langcodes knows (slotvalues.parse_language)
        asks=(r"\b(?:reply|replies|respond|responses?|answer|answers|write|talk|speak|"
                  r"communicate|chat)(?:\s+(?:to|with)\s+me|\s+me)?(?:\s+(?:only|always|just))?\s+in\s+"
                  r"(?P<value>[A-Za-z]+(?:[\s-][A-Za-z]+)?)",
                  r"用(?P<value>[^\s，。,.!?！？；;、用]{1,6}?[语文话])(?:来)?(?:跟我|和我|给我|对我)?"
                  r"(?:回复|回答|回我|交流|沟通|说|写|聊)",
                  r"(?:回复|回答|回我)(?:都|就|一律)?(?:用|改成|换成|改用|换用)"
                  r"(?P<value>[^\s，。,.!?！？；;、]{1,6}?[语文话])"),
        parse=parse_language, names=language_name,
        needs_cue=True,
        labels={"zh": {"zh": "中文", "en": "英文", "ja": "日语", "ko": "韩语", "fr": "法语",
                       "de": "德语", "es": "西班牙语"},
                "en": {"zh": "Chinese", "en": "English", "ja": "Japanese", "ko": "Korean",
                       "fr": "French", "de": "German", "es": "Spanish"}},
        templates={"en": "The user wants replies in {value}", "zh": "用户希望用{value}回复",
                   "en:negative": "The user does not want replies in {replaces}",
                   "zh:negative": "用户不希望用{replaces}回复"}),
    SlotSpec(
        "reply.verbosity", "how long and detailed replies should be",
        values={"concise": ("简洁", "简短", "简明", "简单点", "短一点", "少废话", "言简意赅",
                            "concise", "brief", "short answer", "short reply", "short response",
                            "answer short", "reply short", "response short", "answers short",
                            "replies short", "responses short", "keep it short",
                            "shorter", "terse", "succinct", "to the point", "说重点",
                            "直接说重点"),
                "detailed": ("详细", "具体一点", "展开讲", "多解释", "detailed", "in detail",
                             "more detail", "thorough", "in depth", "in-depth", "elaborate",
                             "long answer", "long explanation", "long reply", "long response",
                             "answer longer", "reply longer", "response longer",
                             "answers longer", "replies longer", "responses longer")},
        cues=("回答", "回复", "解释", "说明", "讲", "结论", "重点", "answer", "reply", "replies",
              "response", "explanation", "explain", "keep it", "be"),
        needs_cue=True,
        labels={"zh": {"concise": "简洁", "detailed": "详细"},
                "en": {"concise": "concise", "detailed": "detailed"}},
        templates={"en": "The user prefers {value} answers", "zh": "用户希望回答{value}",
                   "en:negative": "The user does not want {replaces} answers",
                   "zh:negative": "用户不希望回答{replaces}"},
        clashes={"concise": (("reply.background", "first"),)}),
    SlotSpec(
        "reply.background", "whether answers should explain the background first",
        values={"first": ("背景", "来龙去脉", "前因后果", "background", "the backstory",
                          "the context first")},
        cues=("解释", "讲", "介绍", "说明", "交代", "先", "explain", "start with", "give me",
              "walk me through", "cover", "include"),
        needs_cue=True,
        labels={"zh": {"first": "先解释背景"}, "en": {"first": "explain the background first"}},
        templates={"en": "The user wants answers to {value}", "zh": "用户希望回答{value}",
                   "en:negative": "The user does not want answers to {replaces}",
                   "zh:negative": "用户不希望回答{replaces}"},
        clashes={"first": (("reply.verbosity", "concise"),)}),
    SlotSpec(
        "user.location", "where the user lives", kind=Kind.PROFILE.value,
        patterns=(
            r"我(?:(?:现在|目前|已经|刚|刚刚|最近|一直|上个?月|上周|上个?星期|去年|前年|今年|前几天|"
            r"前段时间|年初|月初|终于|总算|正式)\s*){0,2}(?:从[^，。,.\s]{1,10}?)?(?:住在|居住在|生活在|定居在?|"
            rf"常住在?|搬到了?|搬去了?|搬来了?|搬家到了?)\s*(?P<value>{_ZH_PLACE})"
            r"(?:了|啦|住|生活|居住)?(?=[\s，。,.!?！？；;、]|$)",
            # the user's whole family moving ("我们全家搬来大连了"), not a company or a team
            r"^\s*(?:我们|我)(?:全家|一家|家)(?:(?:已经|刚|刚刚|最近|上个?月|去年|今年)\s*){0,2}"
            rf"(?:搬到了?|搬去了?|搬来了?|搬家到了?)\s*(?P<value>{_ZH_PLACE})"
            r"(?:了|啦|住|生活|居住)?(?=[\s，。,.!?！？；;、]|$)",
            rf"我(?:现在|目前)?在(?P<value>{_ZH_PLACE})(?:住|生活|定居)",
            # 住 without 在: "我现在住北京朝阳" (not 住院, 住得远, 住这儿)
            r"我(?:现在|目前|一直)?住(?![在院宿址房户所处了得的过着不一这那几两二三四五六七八九十\d])"
            r"(?P<value>[^\s，。,.!?！？；;、]"
            r"{2,10}?)(?:了|啦)?(?=[\s，。,.!?！？；;、]|$)",
            r"^\s*我(?:现在的?|目前的?)?家(?:现在|目前)?在(?!装修|搬家|吃|做|办|开|等|忙|收拾|打扫)"
            rf"(?P<value>{_ZH_PLACE})(?=[\s，。,.!?！？；;]|$)",
            rf"\bI(?:'m| am)\s+from\s+[^,.;!?]{{1,40}}?\s+(?:but|and)\s+(?:now\s+)?live\s+in\s+"
            rf"(?P<value>{_EN_PLACE})",
            rf"\bI(?:'m| am)?\s+(?:now\s+|currently\s+|still\s+)?(?:live|living|reside|"
            rf"residing|based|located)\s+in\s+(?P<value>{_EN_PLACE})",
            rf"(?:\bI(?:'ve| have)?\s+(?:just\s+|recently\s+|finally\s+)?|^\s*(?:just|recently|"
            r"finally)\s+|^\s*we(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|"
            r"finally\s+)?)(?:moved|relocated)\s+(?:from\s+[^,.;!?]{1,40}?\s+)?to\s+"
            rf"(?P<value>{_EN_PLACE})",
            # the home named: "my flat is in Camden", "the keys to our new place in Leeds"
            r"\b(?:my|our)\s+(?:(?:new|own)\s+)?(?:flat|house|home|apartment|condo)\s+(?:is|['’]s)"
            rf"\s+in\s+(?P<value>{_EN_TOWN})",
            rf"\b(?:my|our)\s+new\s+(?:place|flat|house|home|apartment|condo)\s+in\s+"
            rf"(?P<value>{_EN_TOWN})",
            # "officially a glasgow resident now"
            r"^\s*(?:(?:I['’]m|I\s+am)\s+)?(?:now\s+|officially\s+|finally\s+){0,2}an?\s+"
            r"(?P<value>[a-z][\w'’\-]{1,30}(?:\s+[a-z][\w'’\-]{1,30})?)\s+resident\b",
        ),
        parse=parse_place, transient=False,
        templates={"en": "The user lives in {value}", "zh": "用户住在{value}",
                   "en:negative": "The user no longer lives in {replaces}",
                   "zh:negative": "用户已不住在{replaces}"}),
    SlotSpec(
        "user.name", "what the user is called", kind=Kind.PROFILE.value,
        patterns=(r"(?<!管)我(?:的名字)?叫(?![了过]|外卖|车|醒|人|餐)(?:做)?\s*"
                  r"(?P<value>[^\s，。,.!?！？；;、]{1,6})"
                  r"(?=[\s，。,.!?！？；;、]|$)",
                  r"我的名字是\s*(?P<value>[^\s，。,.!?！？；;、]{1,10})",
                  # (not what everyone else calls the user, "同事都叫我卷王", unless the
                  # assistant is asked to as well: "大家都叫我阿May，你也这么叫吧")
                  r"(?<!都)(?:请|你可以|以后)?叫我\s*(?P<value>[^\s，。,.!?！？；;、]{1,10})",
                  r"都(?:叫|喊|称呼)我\s*(?P<value>[^\s，。,.!?！？；;、]{1,6})(?=[^。！？!?]{0,12}?"
                  r"你也(?:可以)?(?:这么|这样)?(?:叫|喊|称呼))",
                  rf"\b(?:everyone|everybody|people|folks|friends|(?:all\s+)?my\s+\w+)\s+calls?\s+me\s+"
                  rf"(?P<value>(?-i:{_EN_NAME}))(?=[^.!?]{{0,50}}?\b(?:use\s+that|you\s+can\s+too|"
                  r"you\s+too|go\s+with\s+that|call\s+me\s+that|do\s+the\s+same))",
                  rf"\bmy name(?: is|'s|’s)\s+(?P<value>(?-i:{_EN_NAME}(?: [A-Z][\w'-]*){{0,2}}))",
                  rf"\bcall me\s+(?P<value>(?-i:{_EN_NAME}))",
                  # naming verbs beside "call": "address me as Dr. Okafor", "称呼我为林老师"
                  r"\b(?:address|refer\s+to)\s+me(?:\s+(?:formally|informally|simply|just))?"
                  r",?\s+as\s+(?P<value>(?-i:(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][\w'-]*))",
                  r"称呼我(?:为)?\s*(?P<value>[^\s，。,.!?！？；;、]{1,10})",
                  # the name one goes by: "I go by Alex", "going by Katherine now"
                  # (not a way to travel: "I go by Uber to work")
                  r"\b(?:I|I'm|I've\s+been|started|been)\s+(?:go|going|gone)\s+by\s+"
                  r"(?!(?:Uber|Lyft|Bolt|Bus|Train|Tube|Metro|Subway|Taxi|Car|Bike|Plane|Air|"
                  rf"Ferry|Boat|Foot|Rail|Road|Sea)\b)(?P<value>(?-i:{_EN_NAME}))"),
        parse=parse_name, transient=False,
        templates={"en": "The user's name is {value}", "zh": "用户叫{value}",
                   "en:negative": "The user does not want to be called {replaces}",
                   "zh:negative": "用户不希望被叫作{replaces}"}),
    SlotSpec(
        "user.budget", "how much the user can or wants to spend", kind=Kind.FACT.value,
        patterns=(
            # the period first: "每个月预算大概8000", "my monthly budget is around $2000"
            r"(?:^\s*|我的?\s*)(?P<value>(?:每个?|一个?)[月年周天]\s*(?:的)?预算(?:是|为|在|有|大概|大约|差不多|"
            rf"控制在|不超过|最多|上限是?|只有|:|：|\s)*{AMOUNT})",
            r"\bmy\s+(?P<value>(?:monthly|weekly|yearly|annual|daily)\s+budget"
            r"(?:\s+is|\s+was|:)?\s*"
            r"(?:about\s+|around\s+|roughly\s+|approximately\s+|up\s+to\s+|under\s+)?"
            rf"{AMOUNT})",
            r"(?<![月年周天])(?<![月年周天]的)预算(?:是|为|在|有|就|大概|大约|差不多|控制在|不超过|"
            r"最多|"
            r"上限是?|只有|:|：|\s)*"
            rf"(?P<value>(?:(?:每个?|一个?)[月年周天]\s*)?{AMOUNT}(?:\s*(?:每|一个?)[月年周天])?)",
            r"(?<!monthly )(?<!weekly )(?<!yearly )(?<!annual )(?<!daily )"
            r"\bbudget(?:'s|\s+is|\s+was|\s+of|\s+will\s+be|\s+would\s+be|:)?\s*(?:about\s+|"
            r"around\s+|roughly\s+|approximately\s+|up\s+to\s+|under\s+|at\s+most\s+|"
            r"no\s+more\s+than\s+|below\s+|max(?:imum)?\s+)?"
            rf"(?P<value>{AMOUNT}(?:\s*(?:per|a|/|each)\s*(?:month|year|week|day|mo|yr))?)",
        ),
        parse=parse_money, display=show_money,
        templates={"en": "The user's budget is {value}", "zh": "用户的预算是 {value}",
                   "en:negative": "The user's budget is no longer {replaces}",
                   "zh:negative": "用户的预算不再是 {replaces}"}),
    SlotSpec(
        "medication.time", "when the user takes their medication", kind=Kind.FACT.value,
        patterns=(
            rf"(?P<value>{TIME_ZH})\s*(?:左右)?\s*(?:要|需要|得)?(?:吃药|服药|用药|打针|"
            r"吃.{0,4}药)",
            rf"(?:吃药|服药|用药)(?:的)?时间(?:是|为|在|改到|改成|改为)?\s*(?P<value>{TIME_ZH})",
            r"\b(?:take|taking|have)\s+(?:my\s+|the\s+)?(?:(?!his|her|their|your)[a-z]+\s+){0,2}"
            r"(?:medication|medicine|meds|"
            r"pills?|tablets?|insulin)(?:\s+every\s+(?:day|night|morning|evening)|\s+daily|"
            r"\s+each\s+day)?\s+at\s+"
            rf"(?P<value>{TIME_EN}(?:\s*(?:every|each|at|in\s+the)\s+(?:night|evening|morning|"
            r"afternoon))?)",
            r"\bmy\s+(?:medication|medicine|meds|pill)\s+time\s+is\s+(?:now\s+)?"
            rf"(?P<value>{TIME_EN})",
        ),
        parse=parse_time, transient=False,
        templates={"en": "The user takes their medication at {value}",
                   "zh": "用户每天{value}服药",
                   "en:negative": "The user no longer takes their medication at {replaces}",
                   "zh:negative": "用户不再在{replaces}服药"}),
    SlotSpec(
        "work.hours", "the user's working hours", kind=Kind.PROFILE.value,
        patterns=(
            rf"(?:工作时间|上班时间|办公时间)(?:是|为|:|：)?\s*"
            rf"(?P<value>{TIME_ZH}\s*(?:到|至|-|~|～|—)\s*{TIME_ZH})",
            rf"我(?:每天|一般|平时)?(?:从)?(?P<value>{TIME_ZH}\s*(?:到|至|-|~|～)\s*{TIME_ZH})"
            r"\s*(?:上班|工作)",
            r"(?P<value>朝九晚五)",
            r"我的?(?:上班|工作)(?:时间)?(?:是|为|:|：)?\s*(?P<value>[早朝](?:十[一二]?|[一二三四五六七八九])"
            r"晚(?:十[一二]?|[一二三四五六七八九]))",
            r"\bmy\s+shifts?\s+(?:is|are)\s+(?:from\s+)?"
            rf"(?P<value>{TIME_EN}\s*(?:to|-|–|until|till)\s*{TIME_EN})",
            r"\b(?:I\s+work|my\s+(?:working|work|office)\s+hours\s+are|I'm\s+at\s+work|"
            rf"I\s+am\s+at\s+work)\s+(?:from\s+)?(?P<value>{TIME_EN}\s*(?:to|-|–|until|till)"
            rf"\s*{TIME_EN})",
        ),
        parse=parse_time_range, transient=False,
        templates={"en": "The user works {value}", "zh": "用户的工作时间是 {value}",
                   "en:negative": "The user no longer works {replaces}",
                   "zh:negative": "用户的工作时间不再是 {replaces}"}),
    SlotSpec(
        "diet.restriction", "what the user eats or avoids", kind=Kind.PROFILE.value,
        values={"vegetarian": ("素食", "吃素", "素食者", "素食主义", "vegetarian", "veggie"),
                "vegan": ("纯素", "严格素食", "全素", "vegan", "plant-based", "plant based"),
                "halal": ("清真", "halal"),
                "kosher": ("kosher",),
                "gluten_free": ("无麸质", "gluten-free", "gluten free", "coeliac", "celiac"),
                "lactose_free": ("乳糖不耐", "乳糖不耐受", "lactose intolerant",
                                 "lactose-free", "dairy-free"),
                "low_carb": ("低碳水", "low-carb", "low carb"), "keto": ("生酮", "keto"),
                "pescatarian": ("鱼素", "海鲜素", "pescatarian", "pescetarian"),
                "flexitarian": ("弹性素食", "flexitarian")},
        cues=("吃", "饮食", "diet", "eat", "food", "meal"), stative=True,
        labels={"zh": {"vegetarian": "素食", "vegan": "纯素", "halal": "清真",
                       "kosher": "犹太洁食", "gluten_free": "无麸质", "lactose_free": "无乳糖",
                       "low_carb": "低碳水", "keto": "生酮", "pescatarian": "鱼素",
                       "flexitarian": "弹性素食"},
                "en": {"vegetarian": "vegetarian", "vegan": "vegan", "halal": "halal",
                       "kosher": "kosher", "gluten_free": "gluten-free",
                       "lactose_free": "lactose-free", "low_carb": "low-carb",
                       "keto": "keto", "pescatarian": "pescatarian",
                       "flexitarian": "flexitarian"}},
        templates={"en": "The user follows a {value} diet", "zh": "用户的饮食：{value}",
                   "en:negative": "The user's diet is no longer {replaces}",
                   "zh:negative": "用户的饮食不再是{replaces}"}),
    SlotSpec(
        "diet.goal", "what the user is currently trying to achieve with food and exercise",
        kind=Kind.PROFILE.value,
        values={"weight_loss": ("减肥", "减重", "瘦身", "控制体重", "lose weight",
                                "losing weight", "on a diet", "trying to lose weight"),
                "muscle_gain": ("增肌", "build muscle", "gain muscle", "bulking")},
        stative=True, default_ttl="90d",
        labels={"zh": {"weight_loss": "减肥", "muscle_gain": "增肌"},
                "en": {"weight_loss": "lose weight", "muscle_gain": "build muscle"}},
        templates={"en": "The user is trying to {value}", "zh": "用户最近在{value}",
                   "en:negative": "The user is no longer trying to {replaces}",
                   "zh:negative": "用户不再{replaces}"}),
)

SLOTS = SlotRegistry(BUILTIN)
"""The default registry every extractor uses unless given another; extend it at start-up."""
