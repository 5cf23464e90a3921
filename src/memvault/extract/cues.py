"""The cues the rule extractor keys on: regular patterns for what a sentence does (a wish,
a standing request, a change of mind, a question, a one-off task, someone else's words, a
complaint, …), which value a negation or a change applies to, how long a transient state
lasts, and assistant guesses the user confirmed; plus `sentences` and `is_affirmation`.
Command-like lines are in memvault.extract.commands, what-ifs in memvault.extract.whatifs.
"""

from __future__ import annotations

import re

from ..understand.discourse import THIS_TIME_EN, THIS_TIME_ZH


def any_of(*alts: str) -> re.Pattern[str]:
    """One case-insensitive pattern that matches any of `alts`."""
    return re.compile("|".join(f"(?:{a})" for a in alts), re.I)


# --- sentence-level cues -----------------------------------------------------------------

STANDING = any_of(
    r"\b(?:always|from now on|going forward|in (?:the )?future|by default|default to|"
    r"every time|each time|whenever|never(?!\s+mind)|from here on|"
    r"(?:from|starting|as of) (?:today|tomorrow)(?: on(?:wards)?)?)\b"
    # (not a word of a compound noun: "that always-add-a-summary rule")
    r"(?!-\w)",
    r"以后|今后|往后|后续|之后都|从现在起|从今天起|从现在开始|从今以后|默认|每次|一律|总是|永远|"
    r"统一(?=[给用发导按改换都成走])|"
    r"都用|一直用",
    # an arrangement asked of the assistant about the user: how to remind or reach them,
    # with a recurrence ("Remind me to water the plants on Sundays", "send me a weekly
    # summary"), or by which channel ("Contact me on WhatsApp, not email"), or how to talk
    # to them ("温度用摄氏度跟我说"; not the thing at hand: "这个问题用简单的话跟我说")
    r"^\s*(?:please\s+|pls\s+)?(?:remind|contact|message|text|ping|call|email|notify|"
    r"send|wake)\s+me\b(?=.*\b(?:on\s+(?:\w+days|weekdays|weekends)|every|daily|weekly|"
    r"monthly|nightly|each)\b)(?!.*\b(?:today|tonight|tomorrow)\b)",
    r"^\s*(?:please\s+|pls\s+)?(?:contact|reach|message|ping)\s+me\s+(?:on|via|through|"
    r"by)\s+\w+(?:\s+\w+)?\s*(?:,\s*not\s+\w+\s*)?$",
    r"^(?![^，。！？,.!?]{0,6}[这那])[^，。！？,.!?]{0,6}用[^，。！？,.!?]{1,12}(?:跟|和|对)我"
    r"(?:说|讲|聊)")
CHANGE = any_of(
    r"\binstead\b", r"\bno longer\b", r"\bany ?more\b", r"^\s*no more\b",
    r"\bswitch(?:ed|ing)? (?:it |that |over |back )?to\b", r"\bchange(?:d)? (?:it |that )?to\b",
    r"\b(?:switch|change|move)\w*\b[^.,;]{0,30}\bfrom\b[^.,;]{0,30}\bto\b",
    r"\brather than\b", r"^\s*actually\b", r"\b(?:moved|relocated) to\b",
    r"\b(?:I'm|I am) done with\b(?!\s+(?:the|this|that|it|my|your)\b)",
    r"改成|换成|改为|换为|改用|换用|改到|改回|换回|不再|别再|不要.{0,15}了|不用.{0,15}了|"
    r"(?<![特区分识离派级类性])别(?![人的忘扭致墅针名称处具])[^，。]{0,15}了|而是|其实|搬到|"
    r"搬去|搬家到|取消")
# What a thing does, after "hate": a complaint about it, not a wish ("I hate how the PDF
# export crops the charts"); "I hate how long your answers are" stays a wish.
_HOW_A_THING = r"how\s+(?:the|this|that|my|it)\b"
PREF = any_of(
    r"\bI(?:'d| would| might| may)?\s+(?:really\s+|much\s+|strongly\s+|also\s+|still\s+|now\s+|"
    r"actually\s+|do\s+)?(?:prefer|like|love|want|need|enjoy|hate|dislike)\b"
    r"(?!\s+to\s+(?:know|ask|see|understand|learn|check|try)\b)"
    rf"(?!\s+{_HOW_A_THING})",
    r"\bI(?:'d| would) rather\b", r"\bI\s+(?:don't|do not|never)\s+(?:like|want|need|use)\b",
    r"\bremember (?:that|this)\b", r"\bkeep in mind\b",
    r"\bmake sure (?:to|you)\b", r"\bmy preference\b",
    # what is preferred, named ("my preferred language is German", "my go-to editor is…")
    # or labelled the way apps store it ("Preferred contact: phone", "首选联系方式：电话")
    r"\bmy\s+(?:preferred|favou?rite|go-to)\s+[\w\s-]{1,30}?\s+(?:is|are)\b",
    r"^\s*(?:(?:preferred|favou?rite)\s+[\w\s-]{1,30}|[\w\s-]{1,30}\s+preferences?)\s*[:：]",
    r"^\s*[^，。：:\s]{0,6}(?:首选|偏好|常用|喜欢的)[^，。：:]{0,8}[:：]",
    r"\bstop (?:sending|using|emailing|texting|calling)\b",
    # "WhatsApp is the best way to reach me", "telegram works way better for me"
    r"\b(?:best|easiest|quickest|fastest) way to (?:reach|contact|notify|get (?:hold of|in touch "
    r"with)) me\b",
    r"我(?:自己)?(?:比较|更|很|也|还是|一直|最|非常|真的|特别|就|总是?|一向|向来|始终|通常|平时)?"
    r"(?:喜欢|偏好|偏爱|倾向于?|希望|想要|要|"
    r"习惯|爱|讨厌|不喜欢|不想|不要|受不了|需要)",
    r"记住|记得|别忘了",
    # "X 就行/就好" ends a wish ("有事打我电话就行"), as does an instruction under a
    # condition ("联系我的话发微信")
    # (not "按你说的来就行", which leaves it to the assistant, nor "能睡个懒觉就好了", a
    # hope)
    r"^(?![^。！？]*你)[^。！？]*?(?:(?:就|即)(?:行|可以|成)(?:了|啦|哈|吧)?|就好(?![了啦]))"
    r"\s*[。！!~]?\s*$|即可",
    r"(?:我|我们)的话[，,]?\s*(?:就|请)?(?:发|打|用|找|走)")
# A polite request: a standing wish when it names a slot value ("请用中文回答"), a task
# when it points at the thing at hand ("帮我看看这个报表").
# (also a "please" that closes a clause: "shorter answers please", "more detail pls, …")
POLITE = any_of(r"^\s*(?:please|pls|kindly)\b|\b(?:please|pls|plz)(?:\W*$|\s*[,;.!]\s)",
                r"^\s*(?:请|麻烦|劳驾|帮我|给我)(?!问)")
# Stronger wording than a plain "I like": wanting, standing or remembering.
STRONG = any_of(r"\b(?:prefer|want|need|rather|remember|hate)\b",
                r"偏好|希望|想要|要|记住|讨厌|需要")
FACT = any_of(
    r"\bI\s+(?:live|moved|relocated|work|take)\b", r"\bI(?:'m| am)\s+(?:based|allergic|from)\b",
    r"\bI\s+have\s+an?\s+\w+\s+allergy\b",
    r"\bmy\s+(?!question|problem|point|guess|bad|pleasure|issue|mistake|fault)\w+(?:'s \w+)?"
    r"\s+(?:is|are|was)\b",
    r"\bbudget\b",
    r"我(?:现在|目前)?(?:住|搬|在.{1,12}(?:住|生活|工作|上班)|叫(?![了过])|每天|每晚|"
    r"对.{1,10}过敏|是一名|是一个)", r"我的.{1,8}(?:是|为)", r"预算")
# Switching something off; each rule below says what it must be switched off.
_SWITCH_OFF = r"(?:turn\s+off|switch\s+off|mute|disable|silence|kill)"
_SWITCH_OFF_ZH = r"(?:关了|关掉|关闭)"
# Not reading a channel ("我根本不看邮箱", "微信我经常不看"), before or after its name.
_NOT_READ = r"不看|不怎么看|很少看|不常看"
IMPERATIVE = any_of(
    r"^\s*(?:please\s+)?(?:use|send|reply|respond|answer|write|email|text|notify|export|keep|"
    r"be|give|talk|speak|stop|don't|do not|never|always|switch|change|make)\b",
    # switching notifications off ("turn off email notifications", "mute all alerts")
    rf"\b{_SWITCH_OFF}\s+(?:all\s+|the\s+|my\s+)?(?:\w+\s+)?(?:notifications|alerts|"
    r"reminders)\b",
    rf"(?:通知|推送|提醒)(?:都|全){_SWITCH_OFF_ZH}",
    r"^\s*(?:请|麻烦|还是)?(?:用|使用|发|以(?!前)|通过|回复|回答|导出|改|换|别|不要|都)",
    rf"(?:都|全){_SWITCH_OFF_ZH}吧")
# An imperative of how things are done, after a clause that says why ("the essays are too
# much, keep answers brief"); not a task asked beside something ("…, text me the address").
HOW_IMPERATIVE = re.compile(r"^\s*(?:please\s+)?(?:keep|be|stop|use|switch|change|don't|"
                            r"do\s+not|never|always)\b", re.I)
QUESTION = any_of(
    # a clause opening "When I travel…" is a condition, not a question
    r"^\s*(?:what|which|how|why|when|where|who)\b(?!\s+(?:I|I'm|we|we're|my|our)\b)",
    r"^\s*(?:can|could|would|will|do|does|did|is|are|should|may|shall)\b", r"[吗呢么]\s*$",
    # "不怎么" is "not much", not a question
    r"什么(?![^，。,.？?]{0,8}?[都也])|(?<!不)怎么|为什么|为何|哪|多少|是否|是不是|能不能|可不可以")

# A-not-A ("会不会", "喜不喜欢", "有没有") asks, unless it is a set phrase (时不时, 动不动,
# 爱理不理), a "whether or not" (不管累不累都…, 有没有空都…) or a choice the sentence talks
# about (还没决定去不去, 只在乎香不香); a tag at the end (…好不好, …行吗) asks for
# agreement with what comes before, so it does not make a request a question, unless it
# asks for an opinion (你看行不行).
_A_NOT_A = re.compile(r"([\u4e00-\u9fff])[不没]\1")
_NOT_ASKING_BEFORE = re.compile(r"(?:不管|无论|不论|管他|决定|考虑|在乎|取决于|确定|纠结|看看|"
                                r"知道|记得|忘了|一)[^，。,.？?！!]{0,6}$")
_WHETHER_AFTER = re.compile(r"[^，。,.？?！!]{0,8}?[都也]")
_TAG_END = re.compile(r"[\u4e00-\u9fff]?\s*[呀啊嘛吧哈呢]*\s*[?？!！。.]*\s*$")
_OPINION = re.compile(r"(?:你看|你觉得|你说|你认为)[^，。,.]{0,4}$")


def asks_a_not_a(text: str) -> bool:
    """Does `text` ask an A-not-A question?"""
    for m in _A_NOT_A.finditer(text):
        if m.group(1) in "时动" or text[max(0, m.start() - 1):m.start()] == "爱":
            continue
        if _NOT_ASKING_BEFORE.search(text, 0, m.start()) or _WHETHER_AFTER.match(text, m.end()):
            continue
        if m.group(1) in "好行对成" and _TAG_END.match(text, m.end()) \
                and not _OPINION.search(text, 0, m.start()):
            continue  # a tag: "用中文回答我好不好"
        return True
    return False
# An if-clause ("if …", "要是…的话"): asked as a question, it asks what would happen.
IF_CLAUSE = re.compile(
    r"^\s*(?!if\s+(?:possible|you\s+(?:can|could|don'?t\s+mind|wouldn'?t\s+mind|like|"
    r"want|prefer))|如果可以|如果方便)(?:if\b|如果|假如|假设|要是|万一)", re.I)
PAST = any_of(r"\bI\s+(?:was|used\s+to\s+be|used\s+to)\b", r"我(?:以前|之前|曾经|过去|原来)",
              r"^\s*(?:以前|之前|曾经|过去|原来)[，,\s]*我")
# A childhood story is the past even when it tells of a move ("we moved to Texas when I
# was a kid", "我小时候搬到过上海").
CHILDHOOD = any_of(r"\bwhen I was (?:a\s+(?:kid|child|boy|girl|teen|teenager|student|baby)|little|"
                   r"young|younger|\d+)\b", r"\b(?:as a (?:kid|child)|growing up)\b",
                   r"小时候|小的时候|上学的时候|读书的时候")
NOW = any_of(r"\bnow\b|\bthese days\b", r"现在|如今|目前")
# Not the user's wish: a denial ("I never said I wanted JSON", "我没说要改成英文"), or
# someone else calling or writing ("我不想让他打我电话", "别让推销的打我电话").
DENIAL = any_of(r"\bI\s+(?:never|didn't|did\s+not)\s+(?:say|said|ask|asked|tell|told)\b",
                r"我(?:可|又|并|从来)?没(?:有)?(?:说|让你|要求|叫你)",
                r"(?:让|叫|被)[^，。,.]{1,6}(?:打我|给我打|发我|给我发)")
# One day or one occasion named ("reply in Spanish today", "今天别叫我老师了 叫我宝"; not
# "from today on", "从今天起"): how the assistant is to act then, not from now on.
# ("this time", "这次" as discourse.py reads them: not "for real this time", "这次是认真的")
ONE_DAY = any_of(r"\b(?<!as of )(?<!from )(?<!starting )(?:today|tonight|tomorrow|"
                 r"this (?:morning|afternoon|evening|once))\b(?!\s+on\b)", THIS_TIME_EN,
                 # one thing at hand ("text me the confirmation for this booking")
                 r"\bfor (?:this|that) (?!reason|purpose|kind|sort|type)[a-z]+",
                 r"(?<![从自])(?:今天|今晚|明天|明早|明晚|后天)(?!起|开始|以后|之后)", THIS_TIME_ZH)
# Asking to be called something ("叫我宝", "call me Sasha"), not stating one's name.
CALL_ME = any_of(r"\b(?:call|address)\s+me\b", r"(?<![我你他她])(?:叫|称呼)我")
ONCE = any_of(THIS_TIME_EN, r"\bjust this once\b", r"\bfor this (?:one|report|file|time)\b",
              # one particular thing to export ("export last month's data to xlsx")
              r"\bexport\s+(?:the|these|those|my|last\s+\w+'s|today's|yesterday's|this\s+\w+'s)\s",
              THIS_TIME_ZH,
              # the task at hand taken back by the user ("never mind, I'll look up the
              # train times myself", "算了 我自己看火车票"), not a habit ("I cook for
              # myself") nor a reason ("stop texting me reminders, I'll check the app myself")
              r"^\W*(?:never\s*mind|forget\s+it|no\s+(?:thanks|need)|nah|it['’]?s\s+(?:ok|okay|fine)|"
              r"don['’]?t\s+worry|skip\s+it|delete\s+it|leave\s+it)\b[\s,.!—–-]*(?:I['’]ll|I\s+will)\s+"
              r"(?:just\s+)?[a-z]+\b[^.!?]{0,40}\bmyself\b",
              r"(?:算了|不用了?|不用帮我[^，。！？\s]{0,4})[，,\s]*我自己(?:来|看|查|写|弄|搞|找|订|算|去)",
              # the message at hand ("this one in English please", "这一条用英文回答吧", "这封
              #邮件写正式点"), not how every one should be
              r"\bthis\s+(?:one|answer|reply|response|draft|summary|translation)\b",
              r"这一?(?:条|封)(?:回复|回答|消息|邮件)?(?=[^，。！？]{0,4}(?:用|回|答|写|翻|说))",
              # a request for one thing ("我要一份 XLSX 报表", "send me a PDF of it")
              r"(?:要|来|给我|发我|做|出)一(?:份|张|个|版).{0,8}?(?:报表|报告|文件|表格|文档|副本|"
              r"版本|pdf|csv|xlsx|excel|word|json)",
              # sending something to someone else ("帮我给王经理发邮件通知一下进度")
              r"给(?:我(?=[妈爸哥姐弟妹爷奶姥老儿女])|(?!我|你|出))[^，。,.\s]{1,8}(?:发|寄|打|回)",
              r"(?:发(?:短信|微信|邮件|消息)|打(?:个)?电话)给(?!我(?![妈爸哥姐弟妹爷奶姥老儿女爱]))",
              # a reminder of one thing to do ("别忘了打电话给我妈", "don't forget to text me
              # the address tomorrow"); "别忘了我不吃辣" is a fact to keep
              r"别忘了(?:要|去|帮我|给|发|打|买|带|叫|交|订|回|提醒)",
              r"\b(?:don['’]?t|do\s+not)\s+forget\s+to\b",
              # a reminder for one day ("记得提醒我周五交报告", "remind me to email the
              # landlord on Friday"); "every Friday" is standing (RECURRING)
              r"(?:记得|别忘了)?提醒我(?=[^。！？]{0,12}(?:周[一二三四五六日天]|星期.|明天|今天|今晚|"
              r"后天|下周|\d+[号日点]))",
              r"\bremind\s+me\s+to\b(?=[^.!?]*\b(?:on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)"
              r"day|tomorrow|tonight|today|later|next\s+\w+|at\s+\d))",
              # one thing, once: "发一下昨天的纪要", "写个自我介绍", "导出成PDF发我",
              # "给我导一个 CSV"
              r"发一下|发个|打一下|写个|写篇|写封|给我导(?:一|个)|(?:昨天|今天|上周|这周|刚才)的",
              r"这个问题|今天这",
              r"\b(?:send|give|get|make|export|email)\s+me\s+(?:a|an|one)\b",
              r"\bI\s+(?:need|want|'d like)\s+(?:a|an|one)\s+(?:\w+\s+){0,2}(?:copy|version|"
              r"export|file|report|answer|reply|summary|explanation)\b",
              # a chore on a thing is a task, not a wish for its format: "I need to get rid of
              # the old CSV files", "I have to print the PDF", "我需要把旧的CSV文件删掉"
              r"\bI\s+(?:really\s+|still\s+|just\s+)?(?:need|have|must|'ve\s+got|got)\s+(?:to\s+)?"
              r"(?:get\s+rid\s+of|delete|remove|clean\s+up|print|convert|open|upload|download|fix|"
              r"rename|archive|sign|fill\s+(?:in|out)|merge|compress|zip|back\s+up|find|attach|scan|"
              r"review|proofread|check|finish|submit)\b",
              r"我(?:还)?(?:需要|得|必须|要)把[^，。,;；]{1,20}?(?:删|清理|打印|上传|下载|改名|重命名|"
              r"归档|签|填|合并|压缩|备份|打开|修好|修复|处理|检查|提交|找出来)",
              # a thing sent to someone else ("Email the PDF to Mark before noon")
              r"^\s*(?:please\s+)?(?:email|send|forward|mail|text|share)\s+(?:the|this|that|these|"
              r"those|my)\s+[^.,;!?]{0,30}?\bto\s+(?!me\b|myself\b)\w",
              # cooking or buying for someone else ("cooking halal for my in-laws this weekend")
              r"\b(?:cooking|making|baking|ordering|buying|preparing|catering)\b[^.,;!?]{0,30}?\bfor\s+"
              r"(?:my\s+(?!self\b|own\b)|our\s+|the\s+(?!next\b|rest\b|foreseeable\b)|a\s+)\w",
              # a conversion is a task: "把 XLSX 转成 CSV", "convert the XLSX to CSV"
              r"把.{1,20}(?:转成|转换成|转为|转换为|转化为)",
              r"\bconvert(?:ing)?\s+(?:this|that|these|those|it)\b",
              # a task to do now ("帮我导出成 PDF", "导出成 Excel 给我")
              r"^\s*(?:请|麻烦你?)?帮我(?:把[^，。,]{0,12})?(?:导出|转|生成|做|整理|打印)",
              r"^\s*导出(?:成|为)[^，。,]{0,12}(?:给我|发我)",
              # one thing to give ("give me the long explanation about mortgages")
              r"\bgive me (?:the|a|an|one)\s",
              # one thing to send ("email me the PDF")
              r"\b(?:email|send|text|mail|forward)\s+me\s+(?:the|that|this|those|these)\s+"
              r"(?:\w+\s+)?(?:pdf|file|report|doc|document|attachment|spreadsheet|slides?|deck|"
              r"link|invoice|contract|draft|csv|xlsx|photos?|pictures?|minutes|notes|agenda|"
              r"summary|recording)s?\b",
              # a contact at one time ("text me after that", "call me tomorrow at 5")
              r"\b(?:text|call|email|ping|message|phone)\s+me\s+(?:back\s+)?(?:after\s+(?:that|this|"
              r"lunch|dinner|work|the)|before\s+(?:noon|lunch|dinner|the)|at\s+\d|around\s+\d|"
              r"tonight|tomorrow|later|in\s+(?:an?|\d+)\s+(?:minutes?|hours?))\b",
              r"(?:明天|今晚|晚上|下午|上午|待会儿?|一会儿?|稍后|等下)[^，。,.]{0,4}?(?:给我)?(?:打电话|"
              r"发短信|发微信|发邮件|回电话)",
              # a piece of writing or a translation to make now
              r"翻译(?:这|一下|成)", r"写一(?:封|段|篇|份|个)", r"\btranslate\b",
              r"\bwrite\s+(?:an?|the|this|that|my)\s+(?:\w+\s+){0,2}(?:email|letter|message|"
              r"note|post|essay|summary|reply)\b")
# Something went wrong: a report about a value, not a wish for it.
COMPLAINT = any_of(r"报错|出错|崩溃|打不开|卡死|卡住|很慢|太慢|好慢|失败了|有问题|不好用|乱码|费劲|"
                   r"看不清|不方便|看着累|太多了|\bso-so\b",
                   r"\b(?:crash(?:es|ed)?|fails?|failed|broken|breaks|errors?|bugs?|slow|"
                   r"freezes|hangs)\b", rf"\bhate\s+{_HOW_A_THING}")
CLAUSE = re.compile(r"[，,；;]|\bbut\b|但是|不过")
CONDITION = any_of(r"\b(?:when|whenever|if|once|(?:every|each|any)\s+time)\b",
                   r"如果|一旦|每当|的时候|时")
# A recurring request is a standing one, not a one-off: "I need a PDF report every week".
RECURRING = any_of(
    r"\bevery\s+(?:day|week|month|morning|night|evening|weekday|weekend|time|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)\b", r"\b(?:daily|weekly|monthly|nightly)\b",
    r"\b(?:every|each|all)\s+(?:of\s+your\s+)?(?:answers?|repl(?:y|ies)|responses?|"
    r"explanations?|questions?)\b",
    r"每(?:天|日|周|个?星期|个?礼拜|个?月|晚|早|年|次)",
    # a condition that recurs: "send me an email notification when the build fails"
    r"\bwhen(?:ever)?\b", r"每当|一旦")
# Emphasis makes a standing instruction of a plain sentence ("合同千万别寄到家里"); it
# does not choose a slot value by itself, and not for the thing at hand ("这份务必…").
EMPHASIS = any_of(r"千万|务必|切记|一定要|一定不要|无论如何", r"\bunder no circumstances\b",
                  r"\bwhatever you do\b")
DEMONSTRATIVE = any_of(r"\b(?:this|that|these|those|it)\b", r"这个|这份|这张|这篇|那个|那份|它")
# "change it to SMS notifications": the pronoun stands for the setting the sentence names.
CHANGE_IT = re.compile(r"\b(?:change|switch|set|turn)\s+(?:it|that|this|them)\s+"
                       r"(?:over\s+|back\s+)?to\b", re.I)
REPORTED = any_of(
    r"\b(?:article|post|blog|paper|study|news|website|page|tweet|book|author|he|she|they|"
    r"friend|someone|people|experts?|report|video)\b[^.]{0,40}?\b(?:says?|said|claims?|"
    r"claimed|writes?|wrote|argues?|suggests?|thinks?|believes?|reports?|mentions?|"
    r"recommends?|states?)\b",
    # documentation and chat bots: only with a verb of saying ("the README says …")
    r"\b(?:readme|docs|documentation|tutorial|manual|guide|wiki|chatgpt|gpt|ai|bot)\b"
    r"[^.]{0,20}?\b(?:says?|said|told me|recommends?|states?|suggests?)\b",
    r"\baccording to\b", r"\bit says\b", r"^\s*(?:quote|excerpt)\b",
    r"\b(?:he|she|they|someone|somebody)\s+(?:goes|went|was like|is like|were like)\b",
    r"\bmy\s+(?!name\b)\w+\s+(?:always\s+|keeps\s+|often\s+)?(?:says?|said|tells?\s+me|told\s+me)"
    r"\b",
    r"\bI (?:read|heard|saw) (?:that|somewhere|online|an? )",
    r"原话",
    r"(?:文章|帖子|博客|新闻|报道|公众号|链接|网页|书里|书上|研究|论文|作者|他|她|他们|朋友|同事|"
    r"有人|别人|专家|视频)[^。]{0,12}?(?:说|写道|写着|称|提到|认为|表示|指出|讲|建议)",
    r"(?:教程|文档|说明书|手册|readme)(?:里|上|中)(?:说|写道|写着|写|提到|建议)",
    r"据说|听说|据.{0,10}(?:报道|称)|转发|分享(?:一篇|一下|个)?(?:文章|链接)|"
    r"转了?(?:一)?(?:篇|个|条)(?:文章|链接|视频|帖子)|标题(?:叫|是)")
FIRST = any_of(r"\b(?:I|I'm|I've|I'd|I'll|my|me|mine|myself|im)\b", r"我",
               # chat drops the subject: "trying to lose weight these days"
               r"^\s*(?:been\s+)?trying\s+to\b")
THIRD = re.compile(
    r"^\s*(?:and\s+|also\s+|而且|另外|还有)?(?:(?:(?:my|(?:a|one)(?=\s+(?:[a-z]+\s+)?[a-z]+\s+of\s+(?:mine|ours)\b))\s+(?:(?:best|old|new|personal|former|"
    r"little|big|older|younger|elder|eldest|oldest|youngest|step|late|current)\s+)?"
    # a parent named as one names a person, "my" unsaid: "Dad switched to…", "mum hates…"
    r"|(?=(?:mum|mom|dad|grandma|grandpa|papa|mama)(?:['’]s)?\s+(?!and\b|&)[a-z']))"
    r"(?P<en>wife|husband|partner|son|daughter|"
    r"kids?|child(?:ren)?|mom|mother|dad|father|parents|brother|sister|friend|boss|colleague|"
    r"coworker|manager|girlfriend|boyfriend|team|flatmate|roommate|housemate|in-laws|"
    r"cousin|aunt|uncle|grandma|grandpa|grandmother|grandfather|niece|nephew|neighbou?r|"
    r"mum|mummy|mam|mama|papa|hubby|bf|gf|wifey|missus|mate|"
    r"fianc[ée]e?|landlord|landlady|tenant|client|assistant|coach|trainer|tutor|therapist|"
    r"dentist|doctor|gp|physio|mentor|barber|hairdresser|nanny|babysitter|cleaner)\b"
    r"(?:\s+of\s+(?:mine|ours)\b)?"
    # one of theirs that is the user's own: "my dentist appointment", "my team meeting"
    r"(?!\s+(?:appointments?|visits?|bills?|office|check-?ups?|exams?|sessions?|class(?:es)?|"
    r"lessons?|meetings?|calls?|fees?|practice|clinic|schedule|stand-?ups?|sync|chat)\b)"
    # (after a time or an occasion said first: "今天下午茶 我们组长一口气点了三杯"; not
    # after a clause of the user's own: "周末去爬山 我朋友也去")
    r"|(?:(?:今天|昨天|前天|昨晚|今晚|刚才|刚刚|上周|这周|周末|最近|早上|中午|下午|晚上|上午|那天|"
    r"上次)(?:下午茶|聚餐|聚会|团建|开会|会上|饭局|吃饭的时候)?[\s，,]+)?"
    # (parents also without "我": "爸妈今年搬来北京了", "老妈说…")
    r"(?:我们?的?|(?=爸妈|老爸|老妈|爸爸|妈妈))(?P<zh>老婆|妻子|太太|老公|丈夫|先生|"
    r"儿子|女儿|孩子|爸妈|妈妈|母亲|爸爸|父亲|父母|老爸|老妈|哥哥|姐姐|弟弟|妹妹|朋友|老板|同事|领导|男朋友|"
    r"女朋友|对象|妈|爸|哥|姐|弟|妹|爷爷|奶奶|外公|外婆|姥姥|姥爷|室友|舍友|同学|邻居|房东|闺蜜|"
    r"好友|好朋友|哥们|发小|死党|组长|上司|经理|主管|教练|师傅|搭档|合伙人)"
    # the user's child named without "我": "孩子的钢琴课在周二", "娃在读三年级" (not
    # "孩子的教育问题真让人头疼", about children in general)
    r"|(?:我们?|咱们?)家的?(?P<zh5>孩子|娃|儿子|女儿|闺女|宝宝|小孩|老大|老二)(?![^，。！？]*我)"
    r"|(?P<zh3>孩子|娃|儿子|女儿|闺女)(?=在|上|读|学|报|对|每|的[^，。！？]{1,5}?(?:在|是|报|上))"
    # someone else who says or wants something ("客户说…", "王经理希望…", "the client wants")
    r"|(?:(?:the|our|a)\s+)?(?P<en2>client|customer|boss|manager|team|company|teacher|doctor|"
    r"landlord|lawyer|ceo|cfo|cto|coo|vp|director|supervisor|lead|department|hr|auditor|"
    r"accountant|partner|vendor|investor|board|team\s+lead)s?\s+(?=(?:says?|said|wants?|wanted|"
    r"prefers?|preferred|likes?|asks?|asked|needs?|insists?|requires?|always|usually)\b)"
    r"|(?P<en3>he|she|they)\s+(?=(?:always|usually|prefers?|wants?|likes?|needs?)\b)"
    r"|(?!(?:please|also|and|so|then|just|maybe|now|today|actually|everyone|nobody|this|that|"
    r"it|there|here|what|which|everything|something|nothing|each|every|all)\b)"
    r"(?-i:(?P<en4>[A-Z][a-z]+))\s+(?=(?:says|said|wants|prefers|likes|asked|needs)\b)"
    # a person by where the user knows them from: "Priya from my team has started…"
    r"|(?-i:(?P<en6>[A-Z][a-z]+))\s+from\s+(?:(?:my|our|the)\s+)?(?:team|work|office|class|school|"
    r"gym|uni|college|church|choir|club|book\s+club|next\s+door|upstairs|downstairs|floor|"
    r"building|accounting|finance|marketing|sales|hr|it|legal|support|the\s+\w+\s+team)\b"
    r"|(?:我们(?:组|部门|公司|班|宿舍|单位|团队|办公室)?的?)?(?P<zh2>客户|甲方|老板|领导|经理|主管|上司|公司|团队|部门|小组|全家|家里人|老婆|"
    r"老公|媳妇|室友|舍友|同事|同学|邻居|房东|闺蜜|好友|发小|死党|哥们|朋友(?!圈)|"
    r"他们|她们|他|她|"
    r"[小老][王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾]|"
    r"[王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏"
    r"吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛郝龚邵万钱严武"
    r"戴孔汤老小](?:经理|总监|主管|老师|医生|主任|总))(?:公司|家|那边|团队|部门)?"
    # a person's hours or budget ("我们经理的上班时间是…"); a company's are the user's too
    r"(?=(?<!公司)(?<!团队)(?<!部门)(?<!小组)的(?:上班时间|工作时间|作息|预算|地址|饮食)(?:是|为|在)"
    r"|(?:的(?:报表|报告|文件|通知|数据|账单|周报|月报|上班时间|工作时间|作息|预算|地址))?(?:说|要求|希望|想要|觉得|认为|让|喜欢|偏好|习惯|要|以后|都|一直|"
    r"总是|老是|经常|常常|只|从来|从不|天天|每天|爱|最近|现在|刚|基本|大多|几乎|全|也|又|"
    r"每次|平时|通常|一般)))",
    re.I)
# After someone else's wish, a clause in the user's own voice ("…, but I prefer PDF").
OWN_CLAUSE = re.compile(
    r"[，,;；]\s*(?:(?:but|though|however|但是?|不过|而)\s*,?\s*)?"
    r"(?=(?:I\b|I'm|I'd|my\b|我(?!们)|你|请|please\b|you\b))"
    r"|\s+(?:but|though|however)\s*,?\s*(?=(?:I\b|I'm|I'd|my\b))"
    r"|(?:但是?|不过)(?=(?:我(?!们)|你|请))", re.I)
HEDGE = any_of(
    r"\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|i suppose|not sure|"
    r"kind of|sort of)\b",
    # "大概喝四杯水": about a number, not unsure of the statement
    r"可能|也许|或许|大概(?![^，。,.]{0,2}[\d一二两三四五六七八九十几])|好像|估计|应该吧|说不定|"
    r"不确定|不一定")
# Transient states and their shelf life; the first that matches wins.
TTL: tuple[tuple[re.Pattern[str], str], ...] = (
    (any_of(r"\b(?:today|tonight)\b", r"今天|今晚|今日"), "1d"),
    (any_of(r"\bthis week\b", r"\b(?:the next|for a) few days\b", r"\bthese few days\b",
            r"这周|这个星期|本周|这几天|这两天|这礼拜"), "7d"),
    (any_of(r"\bthis month\b", r"这个月|本月"), "30d"),
    (any_of(r"\b(?:for now|at the moment|for the time being|temporarily|right now)\b",
            r"暂时|目前|眼下|暂且"), "30d"),
    (any_of(r"\b(?:currently|lately|these days|nowadays)\b", r"最近|近期|近来|这段时间|这阵子"),
     "90d"),
)

# --- clause-level cues (which value a negation or a change marker applies to) -------------

BOUNDARY = any_of(r"[，,；;:：]", r"\s[-–—]+\s|—", r"\b(?:but|though|however)\b",
                  r"\binstead\b(?!\s+of)",
                  r"\bswitch(?:ed|ing)? (?:it |over |back )?to\b", r"\bchange(?:d)? (?:it )?to\b",
                  r"而是|但是|但|改成|换成|改为|换为|改用|换用|改到",
                  # chat often separates Chinese clauses with a space, not a comma
                  # after a sentence-final particle
                  r"(?<=[了吧啊呢呀嘛啦哈哦喔噢呗咯嘞的])\s+(?=[\u4e00-\u9fff])")
# Verbs that switch something off, counted only right before a value that is the thing
# switched off ("mute the phone and remind me" mutes a device, not a channel).
OFF = re.compile(rf"\b(?:turning\s+off|{_SWITCH_OFF}|scrap|ditch|get\s+rid\s+of|drop)\s+"
                 r"(?:all\s+(?:the\s+)?|the\s+|my\s+|those\s+|these\s+)?$", re.I)
OFF_WHAT = re.compile(r"(?:\s*(?:notifications?|alerts?|messages?|reminders?|calls?|reports?|"
                      r"exports?)\b|\s*(?:(?:please|pls|plz)\b\W*)?(?:[,;.!]|$))", re.I)
MOVE = re.compile(r"\b(?:switch|chang|mov|go|migrat)\w*\b", re.I)
# "dropped by the vegan cafe", "素食餐厅": the value describes a place, not the user
DESCRIBES = re.compile(r"^\s*(?:cafe|café|restaurant|place|spot|bakery|bar|shop|store|"
                       r"festival|market|deli|diner|joint)s?\b|^(?:餐厅|餐馆|馆|店|饭店|自助)",
                       re.I)
# "no more phone calls from the bank": someone else's calls, not the user's channel
FROM_SOMEONE = re.compile(r"^\s*(?:calls?|messages?|texts?|emails?|notifications?)?\s*from\s+"
                          r"(?!you\b|this app\b|the app\b|here\b|now\b|today\b|tomorrow\b|then\b|"
                          r"this\b|next\b|that\b|\d)\w", re.I)
FROM, TO = re.compile(r"\bfrom\s*$", re.I), re.compile(r"\s*(?:to|into)\b", re.I)
# A budget a group holds, not the user: "our company's marketing budget is $3M", "我们组的预
# 算是80万", "公司今年研发预算2000万".
GROUP_BUDGET = re.compile(
    r"\b(?:company|team|department|dept|org|organi[sz]ation|firm|office|project|client|school|"
    r"club|group|agency|startup|business|charity)(?:['’]s)?\s+(?:[a-z]+\s+){0,3}budget\b|"
    r"(?:公司|团队|部门|小组|组|项目|单位|学校|团建|客户|社团|工作室|班级)[^，。,;；\s]{0,8}预算",
    re.I)
# "don't forget to email me" asks for the email
_NOT_NEG_EN = r"(?!\s+(?:forget|hesitate|fail|worry|miss)\b)"
NEG = any_of(
    r"\b(?:don't|do not|doesn't|does not|never)\b" + _NOT_NEG_EN,
    r"\b(?:no|not|stop|no longer|hate|dislike|without|avoid|blocks?|blocked)\b",
    # giving something up: "I quit keto", "gave up on vegetarianism"
    # ("gave up being vegetarian", "dropped keto", "stopped eating vegan")
    r"\b(?:quit|quitting|stopped|stopping|dropped|ditched|gave\s+up(?:\s+on)?|"
    r"given\s+up(?:\s+on)?|giving\s+up(?:\s+on)?|moved\s+(?:away\s+)?from|"
    r"no\s+longer)\s+(?:being\s+|eating\s+|doing\s+|going\s+|following\s+)?(?:an?\s+|the\s+)?$",
    r"\b(?:quit|quitting|stopped|dropped|ditched|gave\s+up(?:\s+on)?|given\s+up(?:\s+on)?|"
    r"giving\s+up(?:\s+on)?)\s*$",
    r"\bdone with\b(?!\s+(?:the|this|that|it|my|your)\b)", r"n't\b" + _NOT_NEG_EN,
    r"\binstead of\b", r"\brather than\b",
    # the value taken back right before it: "scratch email, ping me on telegram"
    r"\b(?:scratch|forget|nix|drop|ditch|skip)\s+(?:the\s+)?$",
    _NOT_READ + r"|很少用|不常用|不要|不用|不想|不喜欢|不需要|不希望|不接受|不接收|不收|不订阅|"
    r"退订|关闭|关掉|屏蔽|讨厌|受不了|不吃|戒了|戒掉|"
    r"(?<![特区分识离派级类性])别(?![人的忘扭致墅针名称处具])|不再|停止|取消|而不是|而非|不是",
    r"不\s*$")  # right before the value: "我不吃素"
# "短信通知就不要了": the negation follows the value in Chinese ("电话千万别打"; not "短信
# 别打电话", where the not is about the next value).
NEG_AFTER = any_of(r"^[^，,。；;]{0,6}?(?:不要|不用|不需要|算了|关掉|关闭|关了|退订|"
                   + _NOT_READ + r"|别(?:再)?[发打](?![^\W\d_了啦吧呀哈]))",
                   # "生酮不搞了", "PDF 不弄了": the value, then stopping it
                   r"^\s*(?:就|也|都|我)?(?:不|不再)[^，,。；;了\s]{1,2}了",
                   # the value, then the user unable to handle it: "电话经常接不到",
                   # "邮件老是看不过来", "微信根本回不了"
                   r"^\s*[^，,。；;\s]{0,3}?(?:我)?(?:经常|老是|总是|常常|基本|根本|一直|都|也)?"
                   r"[^，,。；;\s]{0,2}?[接看回收听读用打][不没](?:到|了|过来|上|进|着)",
                   # the value, then the user not handling it: "电话我基本不接", "邮件从来不回"
                   r"^\s*(?:我|也|都)?(?:基本|从来|一般|平时|几乎|根本|很少)?(?:都|也)?"
                   r"(?:不|没|很少)(?:怎么)?(?:接|回|看|用|听|读|收|查|开)",
                   r"^\s*(?:is|are)?\s*not\b")
# "所有通知都关了吧": the universal word first, then the negation
ANY_THEN_OFF = any_of(r"(?:所有|全部|一切|任何)的?(?:通知|提醒|消息|推送)[^，。,.]{0,4}?(?:都|全)"
                      r"(?:关了|关掉|关闭|不要了?|取消|退订|停了|别发了)",
                      r"\b(?:all|every)\s+(?:\w+\s+)?notifications?\s+off\b",
                      rf"\b{_SWITCH_OFF}\s+(?:all|every|any)\s+(?:the\s+)?notifications?\b",
                      rf"^\s*(?:把)?(?:通知|推送|提醒)(?:都|全){_SWITCH_OFF_ZH}",
                      r"什么(?:通知|提醒|消息|推送)都(?:别|不要|不用)(?:再)?(?:发|推|提醒)?")
MY_THING = re.compile(r"(?:\bmy\s+|我的?)$", re.I)
IS_AFTER = re.compile(r"\s*(?:(?:is|isn't|was|wasn't|'s|keeps|has|hasn't|died|broke)\b|总是|一直|"
                      r"老是|经常|又|还|不|很|太|坏了|静音)", re.I)
UNIVERSAL = any_of(r"\b(?:any|all|every)\b", r"任何|所有|一切|全部")
PREFER_OVER = re.compile(r"\b(?:prefer|rather)\b.*\bover\b", re.I)
OVER = re.compile(r"\bover\b", re.I)

# --- confirmations ---------------------------------------------------------------------

# "hmm" hesitates, so it is not here; Chinese runs them together ("嗯嗯好的").
_AFFIRM = re.compile(
    # (a particle after a yes, "行啊", "好呀", is still a yes; alone, "啊", "哈哈", it is none)
    r"^(?:(?:(?:嗯+|恩+|对+|对的|是的?|是啊|是呀|没错|好的?|好啊|好滴|行|可以|当然|就是这样|没问题|"
    r"就这样|就这么办|听你的|谢谢|麻烦了)[啊呀嘞哒]?)+|yes|yeah|yep|yup|ya|right|correct|sure|ok(?:ay)?|"
    r"exactly|indeed|uh[- ]?huh|mm+|mm-hmm|please|thanks|thank you|sure thing|sounds good|"
    r"go ahead|go for it|please do|do it|do that|that works|works for me|perfect|fair)$",
    re.I)
GUESS = any_of(r"\b(?:guess|probably|might|maybe|seem|seems|assume|do you|are you|would you)\b",
               r"猜|可能|是不是|应该|大概|估计|想必|吗|[?？]")
SECOND = any_of(r"\b(?:you|your)\b", r"您|你")

STRIP_LEAD_EN = re.compile(
    r"^\s*(?:(?:and|also|so|ok|okay|oh|well|btw|by the way)\b[\s,]*)*(?:please\s+)?"
    r"(?:remember (?:that\s+)?|keep in mind (?:that\s+)?|note that\s+)?", re.I)
STRIP_LEAD_ZH = re.compile(r"^\s*(?:请|麻烦)?(?:记住|记得|别忘了)[，,:：\s]*")

# (not the full stop of a title before a name: "My dentist is Dr. Smith"; not a "!" or
# "?" inside a word: "Zebra7!Quux", a password, is one token)
_SENTENCE_END = re.compile(r"(?:[。！？\n]|[!?](?![A-Za-z0-9]))+|"
                           r"(?<!\b[DdMm]r)(?<!\bMrs)(?<!\bMs)(?<!\bProf)(?<!\bSt)"
                           r"\.(?=\s|$)|…+")


def sentences(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, is_question) of each sentence, whitespace trimmed, terminator excluded.
    Semicolons and commas stay inside: "不要短信，改成邮件" is one statement."""
    out: list[tuple[int, int, bool]] = []
    pos = 0
    for m in [*_SENTENCE_END.finditer(text), None]:
        end = m.start() if m else len(text)
        chunk = text[pos:end]
        lead = len(chunk) - len(chunk.lstrip())
        s, e = pos + lead, pos + len(chunk.rstrip())
        if e > s:
            out.append((s, e, bool(m and re.search(r"[?？]", m.group(0)))))
        if m is None:
            break
        pos = m.end()
    return out


def is_affirmation(text: str) -> bool:
    """A bare "yes"/"嗯"/"对的" that adds no words of its own ("yes please", "嗯嗯好的",
    "可以👍": an emoji is no word)."""
    text = re.sub(r"[^\w\s'’-]+", ",", text)
    parts = [p for p in re.split(r"[，,。.!！~～、…]+", text.strip()) if p.strip()]
    words = [w for p in parts for w in (p.split() if _AFFIRM.match(p.strip()) is None
                                        else [p.strip()])]
    return bool(words) and all(_AFFIRM.match(w) for w in words) and not all(
        w.lower() in ("please", "thanks", "thank you", "谢谢") for w in words)


# A request put as a question is still a request ("can you forget the divorce stuff?").
REQUEST = re.compile(r"^\s*(?:can|could|would|will)\s+you\b|能不能|可不可以|能否|可以.{0,10}吗",
                     re.I)

# A change asked for as a question: "can you switch to answering in Spanish?",
# "能不能以后改成…".
CHANGE_REQUEST = re.compile(
    r"^\s*(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+)?(?:switch|change|move|"
    r"start|stop)\s+(?:to|over|from|using|answering|replying|writing|calling|sending|"
    r"giving|using)\b|(?:能不能|可不可以|能否)(?:以后|今后|往后|改|换)", re.I)


# One person named by several words ("mum", "mom", "mother"; "我妈", "妈妈", "老妈"): what is
# stored about them is found by any of them (gate.py relates a change about someone of the
# user's to what is stored about the same person).
_SAME_PERSON = {
    **dict.fromkeys(("mum", "mom", "mother", "mummy", "mam", "mama"), "mother"),
    **dict.fromkeys(("dad", "father", "papa"), "father"),
    **dict.fromkeys(("wife", "wifey", "missus"), "wife"),
    **dict.fromkeys(("husband", "hubby"), "husband"),
    **dict.fromkeys(("girlfriend", "gf"), "girlfriend"),
    **dict.fromkeys(("boyfriend", "bf"), "boyfriend"),
    **dict.fromkeys(("kid", "kids", "child", "children"), "kids"),
    **dict.fromkeys(("妈妈", "妈", "母亲", "老妈"), "妈妈"),
    **dict.fromkeys(("爸爸", "爸", "父亲", "老爸"), "爸爸"),
    **dict.fromkeys(("爸妈", "父母"), "父母"),
    **dict.fromkeys(("老婆", "妻子", "太太"), "老婆"),
    **dict.fromkeys(("老公", "丈夫"), "老公"),
    **dict.fromkeys(("孩子", "娃", "小孩", "宝宝"), "孩子"),
}


def same_person(word: str) -> str:
    """The one name of whom `word` names ("Mum" → "mother", "老妈" → "妈妈")."""
    return _SAME_PERSON.get(word.casefold(), word.casefold())
