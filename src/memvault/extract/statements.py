"""Open-vocabulary statements: a sentence about the user that no slot names.

A memory does not need a vocabulary: "I bank with Barclays", "我写代码用Vim", "Show me
temperatures in Celsius", "跟我说话直接点" are lasting facts and wishes whatever they are
about. What marks them is their form, not their topic: the user speaking about
themselves in the present (a first-person subject, or none said: "对花生过敏", "Retired
history teacher, 68"), or asking for how things should be done from now on (a standing
imperative) — and not asking a question, asking for a task
to be done now, or musing aloud. These patterns are of that form only; the rule
extractor's other filters (what-ifs, quotes, someone else, one-offs, the past) run first.

A sentence that is neither but announces a change ("move my digest to Mondays", "还是
…吧") is kept as a *tentative* candidate: it is stored only if it changes a memory it
matches by meaning (the gate decides, understand/relate.py).
"""

from __future__ import annotations

import re

import jieba

from ..understand.discourse import SPEAKER, changes_mind, marks_change, one_time, settles
from ..understand.stance import core, polarity
from ..understand.topics import content_words
from .cues import THIRD, any_of

_OPENER_EN = (r"(?:oh|btw|fyi|also|and|so|well|ok|okay|honestly|actually|anyway|plus|"
              r"just\s+so\s+you\s+know|for\s+the\s+record|note\s+that|remember\s+that|"
              r"by\s+the\s+way|heads\s+up|for\s+context|quick\s+note)")
# The start of a sentence whose "I" chat English leaves out: "oh finally started…"
_LEAD_EN = rf"^\s*(?:{_OPENER_EN}[,:!-]?\s+)*(?:just\s+|finally\s+|recently\s+|also\s+)?"
# A span of time something has lasted: "for 2 years now", "for about 6 yrs".
_FOR_A_SPAN = (r"for\s+(?:about\s+|over\s+|almost\s+|nearly\s+|like\s+|the\s+(?:past|last)\s+)?"
               r"(?:\d+|a|an|two|three|four|five|six|seven|eight|nine|ten|several|many|a\s+few|"
               r"a\s+couple\s+of)\s+(?:years?|yrs?|months?|decades?)")
SELF_SUBJECT = any_of(
    # "I"/"we" as the subject, anywhere in the sentence ("For diagrams I also use …")
    r"\b(?:I|I'm|I've|I'd|I'll|Im|we|we're|we've|we'd)\b(?!['’]\w)|\bi'm\b",
    # "my …" opening a clause, or "my X is …" anywhere
    rf"(?:^|[,;:–—-]\s*|\b(?:and|but|so)\s+)(?:{_OPENER_EN}[,:!-]?\s+)*(?:my|our|"
    r"me\s+and\s+my)\b",
    r"\b(?:my|our)\s+(?:\w+\s+){0,2}(?:is|are|was|were|has|have)\b",
    # "Python is my main language at work", "Tuesdays are my gym days" (not "this is my
    # friend's car", not "that's my point")
    r"^\s*(?!(?:this|that|it|he|she|they|there|these|those|what|who|which|where|here)\b)"
    r"[^,.;!?]{1,40}?\b(?:is|are|was|were)\s+(?:\w+\s+)?(?:my|our)\s+(?!\w+['’]s\b)\w",
    # a habit with its "I" unsaid: "usually hit the gym at 6:30", "never drink before noon"
    r"^\s*(?:usually|normally|generally|mostly|typically|rarely|seldom|never)\s+"
    r"(?!(?:mind|you|your|the|this|that|it|a|an|people|kids|children|men|women|folks|"
    r"everyone|everybody|most|some|they|we|he|she|there)\b)[a-z]{2,}\b",
    # what the speaker has been: "been a software tester for 11 years"
    rf"^\s*(?:{_OPENER_EN}[,:!-]?\s+)*(?:have\s+|'ve\s+)?been\s+(?:a|an)\s+\w+",
    r"(?:^|[，,；;：:])\s*(?:其实|对了|顺便说一下|顺便|补充一下|另外|还有|记一下|说一下|跟你说|"
    r"告诉你|哦|嗯|诶|对|是这样|现在|最近)?[，,：:]?\s*(?:我|我们|我家|咱们|咱|俺)",
    # "Java是我的主力语言"
    r"^[^，。！？,.!?]{1,12}是(?:我|咱)的",
    # Chinese drops the subject when it is the speaker: "最近迷上了韩餐", "现在 10 点就睡",
    # "今年在阳台种了番茄"
    # (not 每天: "每天都应该喝咖啡" is what an article says anyone should do)
    # (not 平时/一般: "平时多喝水对身体好" is advice; nor "…的人": "今年种番茄的人特别多")
    r"(?:^|[，,；;：:])\s*(?:最近|现在|这阵子|这段时间|这几天|目前|如今|向来|从小|今年|"
    r"这个月|这周)(?![^，。！？,.!?：:]*的人)"
    r"[^，。！？,.!?：:]{0,6}?(?:迷上|爱上|喜欢|开始|习惯|改|换|吃|喝|看|听|玩|睡|起|住|学|练|"
    r"跑|骑|戒|种|养)",
    # So does chat English, for what the speaker has been doing: "been learning Welsh"
    # (a verb of one event, "bought milk", "started raining", is read only as a possible
    # change: _DID below)
    rf"^\s*(?:{_OPENER_EN}[,:!-]?\s+)*(?:just\s+|also\s+)?(?:have\s+|'ve\s+)?been\s+"
    r"(?!(?:thinking|wondering|meaning|trying)\b)\w+ing\b(?![^.!?]*\byou(?:r)?\b)"
    # (not for a span of minutes or hours: "been waiting for the bus for ages", "been
    # sitting in traffic for an hour" is this moment, not a habit)
    r"(?![^.!?]*\b(?:for\s+(?:ages|an?\s+hour|(?:a\s+)?(?:few|couple\s+of)\s+(?:minutes|hours)|"
    r"\d+\s*(?:minutes?|mins?|hours?|hrs?)|(?:two|three|four|five|ten|twenty)\s+(?:minutes|"
    r"hours))|all\s+(?:day|morning|afternoon|evening|night))\b)",
    # a habit begun or ended ("started doing yoga", "quit smoking", "stopped eating meat";
    # not the weather, "started raining")
    _LEAD_EN +
    r"(?:started|stopped|quit|gave\s+up|took\s+up|picked\s+up|began)\s+"
    r"(?!(?:raining|snowing|pouring|getting|to)\b)\w+ing\b(?![^.!?]*\byou(?:r)?\b)",
    # what the speaker did or does, with a word that says it lasts ("signed up for a
    # Spanish class on Tuesdays", "living in Toronto these days", "learning Rust in my
    # spare time"); "growing concerns about the budget" says nothing lasts
    _LEAD_EN +
    r"(?:started|stopped|switched|moved|bought|sold|adopted|joined|signed\s+up|took\s+up|"
    r"picked\s+up|gave\s+up|quit|growing|(?!getting\b|going\b)[a-z]{2,}ing)\b"
    r"(?![^.!?]*\b(?:you|your|is|are|was|were)\b)"
    r"(?=[^.!?]*\b(?:every|each|daily|weekly|twice|once\s+a|a\s+(?:day|week|month)|"
    r"on\s+\w+days|on\s+(?:weekends|weekdays)|completely|for\s+good|these\s+days|nowadays|"
    r"in\s+my\s+spare\s+time|full[\s-]time|at\s+the\s+moment|since|this\s+(?:year|summer|"
    r"spring|autumn|fall|winter|season|term|semester)|" + _FOR_A_SPAN + r"|next\s+(?:year|"
    r"summer|spring|autumn|fall|winter)|in\s+the\s+next\s+(?:\d+|few|couple|two|three|"
    r"five)\s+(?:years?|months?))\b)",
    # what the speaker has been for a span: "been vegan for about 6 yrs"
    # (not what a thing or someone else has been: "been dead for 2 years", "been closed…")
    rf"^\s*(?:{_OPENER_EN}[,:!-]?\s+)*(?:have\s+|'ve\s+)?been\s+(?!(?:dead|gone|closed|"
    r"broken|empty|open|missing|out|friends|together|here|there)\b)[a-z-]+\s+" + _FOR_A_SPAN,
    # Chinese puts the topic first: "新海诚的片子我也挺爱看的", "早饭我一直都不吃"
    r"(?:我|我们|咱们|咱)[^，。！？,.!?：:]{0,4}?(?:爱|喜欢|讨厌|用|吃|喝|看|听|玩|去|会|要|想|"
    r"在|是|有|养|住|做|打|买|学|开|坐|穿|读|写|练|跑|骑|睡|起|戴|习惯|偏好|受不了)")
# Thinking aloud about the conversation, not a statement about oneself.
MUSING = any_of(
    r"^\s*(?:I|we)\s+(?:think|guess|suppose|know|see(?!\s+(?:a|an|my|him|her|them)\b)|mean|agree|understand|hope|wonder|bet|"
    r"doubt|forgot|believe|feel\s+like|was\s+wondering|am\s+wondering|just\s+(?:wanted|"
    r"realized|realised|saw|got|came|remembered)|can'?t\s+(?:decide|remember|believe)|"
    r"have\s+a\s+question|need\s+(?:help|advice|some\s+help|a\s+hand))\b",
    r"^\s*(?:I'm|I\s+am)\s+(?:not\s+sure|wondering|curious|confused|stuck|trying\s+to\s+"
    r"(?:figure|decide|understand|work\s+out))\b",
    r"^\s*我(?:觉得|认为|想问|想知道|看看|知道了|明白|同意|问一下|刚|刚才|刚刚|不太确定|不确定|"
    r"在想|好奇|纠结|有个问题|有点疑问|需要帮助)",
    # regret about telling, not a statement: "I shouldn't have shared it"
    r"\bI\s+(?:shouldn'?t|should\s+not)\s+have\s+(?:shared|said|told|mentioned)\b",
    r"\bI(?:'d|\s+would)\s+like\s+to\s+know\b|\bI\s+want\s+to\s+know\b",
    r"\bI'?m\s+done\s+with\s+(?:the|this|that|it|these|those)\b",
    r"你(?:给我|发我|发给我|说|写|做)的",
    r"\bI\s+(?:don'?t|do\s+not)\s+want\s+(?:it|that|this)\s+(?:stored|kept|saved|"
    r"remembered|on\s+file)\b",
    r"不想(?:留|存|让你记)")
# A task for the assistant now, not a standing wish.
TASK = any_of(
    r"\b(?:can|could|would|will)\s+you\b", r"(?:^|\bplease\s+|\bpls\s+)\s*help\s+me\b",
    r"\bI\s+(?:need|want|'d\s+like|would\s+like)\s+(?:the|a|an|some|your)\s+(?:\w+\s+){0,3}"
    r"(?:explanation|answer|summary|overview|breakdown|list|example|version|copy|draft|"
    r"review|help|advice|info|information|details|opinion|feedback)\b",
    r"\b(?:I|we)\s+(?:need|want|would\s+like|'d\s+like)\s+you\s+to\b", r"\blet'?s\b",
    r"能不能|能否|可不可以|你能|你可以(?!叫我|称呼我|喊我)|帮忙",
    r"帮我(?![^。]*(?:的时候|每次|以后|一般|总是|优先|都))")
_VERBS_EN = (r"use|show|give|address|call|sign|reply|respond|answer|write|send|remind|keep|"
             r"format|put|list|include|avoid|stop|start|tell|notify|text|email|ping|message|"
             r"round|convert|quote|display|express|measure|spell|refer\s+to|default\s+to|"
             r"book|order|schedule|suggest|recommend|assume|treat|speak|talk")
# Sent, told or brought to the user: "发给我", "发到我邮箱", "提醒我", "抄送我".
_TO_ME = (r"发给我|给我发|发我|(?:发|寄|送|推送?|转)到我(?!们)|推给我|推送给我|给我推送|提醒我|"
          r"告诉我|通知我|找我|联系我|叫我|抄送我")
STANDING_IMPERATIVE = any_of(
    rf"^\s*(?:please\s+|pls\s+|kindly\s+)?(?:always\s+|never\s+|don'?t\s+|do\s+not\s+)?"
    rf"(?:{_VERBS_EN})\b(?!\s+(?:me\s+|us\s+)?(?:this|that|these|those|it)\b)",
    r"^\s*(?:请|以后|今后|往后|每次|每天|每周|每月|每晚|每早|平时|一律|所有|回复|回答|跟我|和我|"
    r"给我|发给我|发我|文件|表格|报告|推荐|提醒)[^。！？]*?(?:我|都|别|不要|要|用|发|按|保留|"
    r"优先|先)",
    # (not a thing described: "给我推荐的电影每次都很无聊")
    r"^\s*(?:请|麻烦)?(?:帮我|给我)(?![^，。！？]{0,4}?的(?!时候))[^。！？]*"
    r"(?:的时候|每次|以后|一般|总是|优先)",
    r"(?:每天|每周|每月|每晚|每早|每个?(?:周|星期|礼拜)[一二三四五六日天]|工作日)[^。！？]*?"
    rf"(?:{_TO_ME})",
    # How to reach the user, said first: "联系我优先发微信", "叫我的话打电话就行"
    # (not someone described: "联系我的猎头都是做金融的", "叫我去的人都走了")
    r"^\s*(?:请|以后)?(?:联系|找|通知|提醒|叫)我(?![^，。！？]{0,6}?的)[^。！？]*?"
    r"(?:优先|一律|就行|就好|最好)",
    # A request for every one of a kind: "Please CC my assistant on all meeting summaries"
    # (not the thing at hand: "Please check for any typos in this paragraph")
    r"^\s*(?:please|pls|kindly)\s+[a-z]+\b(?![^.!?]{0,80}\b(?:this|these|that|those)\b)"
    r"[^.!?]{0,80}?\b(?:on|for|in|to|with|into|from|of)\s+(?:all|every|each)\b",
    # How to reach or remind the user, on a condition that recurs: "开会前 10 分钟提醒我",
    # "有事用微信找我就行", "每个新订单都要通知我"
    r"(?:有(?:事|问题|情况|消息|更新)|随时|每[个次天周月晚早]?|[前后]\s*\d+\s*分钟|以后|今后|"
    r"所有|一律)[^。！？]*?"
    rf"(?:{_TO_ME})",
    # A thing, then how it should be done (topic first, no subject): "报表发 PDF 给我",
    # "通知请发邮件", "周报要用正式的书面语", "日历同步用 Outlook"
    # ("手机用久了就卡" says how a thing behaves; "把这个文件发给我" is a task now).
    r"^\s*(?!(?:你|您|他|她|它|有人|别人|大家))(?:(?![把这那])[\u4e00-\u9fff]){2,6}\s*"
    r"(?:(?:请|要|都要|得|一律|统一)\s*(?:用|发|交|按)(?!的|完)\s*[^，。！？]{1,16}?(?:给我|发我|格式|"
    r"就行|就好|吧|$)|(?:用|发|按)(?!的|完)\s*(?:[^，。！？]{0,8}?(?:给我|发我)|"
    r"[A-Za-z][A-Za-z0-9 .+#-]*$))")


# For now, not from now on.
_FROM_NOW_ON = re.compile(r"\b(?:from\s+now\s+on|going\s+forward|always|every|whenever|"
                          r"in\s+(?:your\s+|all\s+)?(?:replies|answers|responses|messages)|"
                          r"when(?:ever)?\s+you\s+(?:reply|answer|respond|write))\b|"
                          r"以后|今后|往后|每次|每天|每周|总是|一直", re.I)


def is_task(text: str) -> bool:
    """A request for something now ("can you explain…", "I need the full explanation of
    …"), not a standing wish ("I need a detailed explanation for every answer")."""
    return bool(TASK.search(text)) and not _FROM_NOW_ON.search(text) and not marks_change(text)


# Something to make or find now: "Give me three names for a bakery", "Write a haiku about
# autumn", "recommend a book" (a thing counted out), unless it is asked for from now on.
_MAKE_NOW = re.compile(
    r"^\s*(?:please\s+|pls\s+|now\s+)?(?:give|write|list|send|suggest|recommend|tell|show|draft|"
    r"make|find|name|translate|summari[sz]e|explain|create|generate|compose|plan|pick|"
    r"come\s+up\s+with)\s+(?:me\s+|us\s+)?(?:a|an|one|two|three|four|five|six|seven|eight|"
    r"nine|ten|\d+|some|a\s+few|several)\b"
    # "给我写首关于秋天的诗", "帮我起三个名字" (not "给我推荐书的时候别推成功学")
    r"|^\s*(?:请|麻烦)?(?:给我|帮我|替我)?(?:写|编|起|画|列|出|做|想|翻译|总结|推荐)"
    r"[一两三四五六七八九十几]?[首个篇段份张条句道](?![^。！？]*的时候)", re.I)


def undecided(text: str) -> bool:
    """A sentence no pattern here reads either way: it names something, is chat-length, and
    is not thinking aloud, a task, a thing to make now, an event or a need of the moment,
    what holds for now, one occasion, or said of someone or something else. Whether it
    states something lasting about the user is then judged by its meaning
    (statementscore.py)."""
    return names_something(text) and len(text) <= _LONGEST and not (
        MUSING.search(text) or TASK.search(text) or _MAKE_NOW.search(text)
        or _EVENT_OR_NEED.match(text) or _FOR_NOW.search(text) or _said_of_another(text)
        or (one_time(text) and not _FROM_NOW_ON.search(text)))


# The speaker's own people and things, said without "my" ("hubby's a pilot", "cat's called
# Mochi", "gym is mon/wed/fri", "公司用飞书", "猫叫年糕"): a closed class of nouns.
_OWN_NOUNS_EN = (r"(?:hubby|husband|wife|wifey|partner|bf|gf|boyfriend|girlfriend|fianc[eé]e?|"
                 r"kids?|son|daughter|baby|toddler|mum|mom|dad|parents|sister|brother|"
                 r"cat|dog|pup|puppy|kitten|pets?|flat|house|home|place|apartment|room|garden|"
                 r"job|work|boss|manager|team|office|company|commute|shift|salary|rent|"
                 r"mortgage|landlord|school|class|classes|lessons?|gym|training|diet|"
                 r"phone|laptop|pc|computer|car|bike|back|knee|knees|eyes?|skin|sleep|"
                 r"schedule|routine|budget|hometown|major|birthday|height|weight|"
                 r"blood\s+type|native\s+language|hobby|hobbies)")
# A sentence with a subject of its own before its verb is about that subject ("John lives
# in Leeds", "Python is a programming language", "lactose intolerance is common in Asia",
# "张三住在广州", "北京是中国的首都", "咖啡影响睡眠"), unless the subject is one of the above.
_SUBJECT_EN = re.compile(
    r"^\s*(?:(?:the|a|an|some|most|all)\s+)?(?P<subject>(?:[\w-]+\s+){0,3}?[\w-]+?)"
    r"(?:['’]s\s|\s+(?:is|are|was|were|lives|works|has|have|seems|looks|gets|runs|costs|"
    r"tastes|means|causes|makes|affects|helps)\b)", re.I)
_SPEAKERS_OWN_EN = re.compile(rf"^(?:(?:my|our|the)\s+)?(?:\w+\s+)?{_OWN_NOUNS_EN}$", re.I)
# What opens a sentence about the speaker, not a subject: "I'm…", "my…", "never…", "don't…".
_SPEAKER_FIRST_EN = re.compile(r"(?:i|i'm|im|we|me|my|our|never|always|usually|just|also|"
                               r"still|been|not|no|don't|dont|can't|cant)\b", re.I)
_SUBJECT_ZH = re.compile(
    r"^\s*(?:[\u4e00-\u9fff]{2,6}?)(?=住在|住|是|影响|导致|喜欢|爱)")
_SPEAKERS_OWN_ZH = re.compile(
    r"^\s*(?:老公|老婆|媳妇|爱人|对象|男朋友|女朋友|娃|孩子|儿子|女儿|闺女|宝宝|爸|妈|爸妈|父母|爷爷|"
    r"奶奶|外公|外婆|姥姥|姥爷|哥|姐|弟|妹|猫|狗|家里|家|公司|单位|老板|领导|工作|房子|房租|房贷|"
    r"工资|手机|电脑|车|学校|作息|身体|腰|膝盖|眼睛|胃|皮肤|睡眠|预算|老家|家乡|专业|职业|血型|"
    r"星座|生日|身高|体重|属相|学历|母语|爱好|性格|口味|酒量|饭量|习惯)")


def _said_of_another(text: str) -> bool:
    """Does the sentence have a subject of its own that is not the speaker's?"""
    m = _SUBJECT_EN.match(text)
    if m and re.search(r"[A-Za-z]", m.group("subject")) \
            and not _SPEAKER_FIRST_EN.match(m.group("subject")):
        return not _SPEAKERS_OWN_EN.match(m.group("subject"))
    return bool(re.match(r"\s*[\u4e00-\u9fff]", text) and _SUBJECT_ZH.match(text)
                and not _SPEAKERS_OWN_ZH.match(text) and not re.match(r"\s*[我咱俺]", text))


# A chat line's length: what is longer and no rule read is pasted text or a list of words,
# not a statement the model was fitted on (lines of at most a few sentences).
_LONGEST = 280


# Bounded in time: where or how the speaker is for now ("in Paris for the weekend", "at
# the dentist rn", "这周在北京出差"), not how things stand; or a thank-you.
_FOR_NOW = re.compile(
    r"\b(?:rn|atm|right\s+now|at\s+the\s+moment|this\s+(?:week|weekend|morning|afternoon|"
    r"evening)|for\s+the\s+(?:weekend|week|day|night|holidays?)|(?:till|until|til)\s+\w+)\b|"
    r"这周|本周|这几天|这两天|今天|今晚|下周|周末在"
    # a reaction to the answer: "great pasta recipe, thanks"
    r"|\b(?:thanks|thank\s+you|thx|ty)\b|谢谢|多谢|感谢", re.I)


# Verbs of one event in the past: "tried", "went", "bought" (not a trait: "left-handed").
_EVENTS_EN = (r"tried|finished|watched|bought|went|got|saw|had|made|took|did|booked|ordered|"
              r"visited|played|cooked|ate|drank|ran|walked|met|called|texted|sent|spent|found|"
              r"lost|left|heard")


# With "I" unsaid, one event ("tried ticktick for a week", "went to the gym") or a need of
# the moment ("need a snack idea for the train").
_EVENT_OR_NEED = re.compile(
    _LEAD_EN + rf"(?:need(?:s|ed)?\s+(?:a|an|some|help|ideas?)\b|(?:{_EVENTS_EN})(?![\w-]))",
    re.I)


def standing(text: str) -> bool:
    """A statement about the user or a standing wish, of any topic."""
    if MUSING.search(text) or TASK.search(text):
        return False
    if _MAKE_NOW.search(text) and not _FROM_NOW_ON.search(text):
        return False
    if one_time(text) and not _FROM_NOW_ON.search(text):
        return False
    if not names_something(text):
        return False  # "I love it!", "我也是": about what came before
    return bool(SELF_SUBJECT.search(text) or STANDING_IMPERATIVE.search(text)
                or unsaid_self(text) or self_label(text))


# A line that opens with what the speaker is, no verb and no subject: "Wheelchair user, so
# accessibility matters", "Retired history teacher, 68", "Job: ICU nurse", "Insomnia for
# years; …", "甲减 每天早上吃优甲乐", "二型糖尿病 控糖中". The label is the user's own (a
# chat line to an assistant that opens with a bare noun phrase and goes on about it), unless
# it is a reaction or a greeting ("Great question, thanks", "好的 谢谢啦") or names a time
# ("Long day, finally home").
_LABEL_EN = re.compile(
    r"^\s*(?P<label>(?!(?:great|good|nice|cool|perfect|awesome|sure|ok|okay|thanks|thank|wow|"
    r"yes|yeah|yep|no|nope|hmm+|hi|hello|hey|sorry|oops|interesting|right|exactly|true|fair|"
    r"lol|haha\w*|damn|ugh|oh|ah|well|fine|alright|agreed|long|busy|rough|crazy|quick|bad|"
    r"hot|fun|weird|funny|same|congrats|cheers|morning|afternoon|evening|night|happy|merry|"
    r"welcome|bye|done|noted|yay|wait|whoa|huh|meh|lovely|brilliant|amazing|excellent|"
    r"question|note|edit|update|error|warning|ps|fyi|re|subject|todo|task|answer|example|"
    r"step|tip|reminder|context|summary|title|translation|input|output|result|q|a|the|this|"
    r"that|these|those|it|there|here|what|which|who|why|how|when|where|if|so|and|but|or|"
    r"today|tonight|tomorrow|yesterday|now|just|also|please|pls|maybe|probably|not\s+sure|"
    r"my|our|your|his|her|their|beautiful|gorgeous|terrible|horrible|awful|boring|stunning|"
    r"delicious|tasty|cute|ugly|fantastic|wonderful|incredible|annoying|disgusting|gross|sad|"
    r"scary|stupid|silly|insane|epic|solid|decent|typical|classic)\b)"
    r"(?:not\s+a\s+)?[\w'-]+(?:\s+[\w'-]+){0,4}?)\s*"
    r"(?:(?P<sep>[,;:—–]|\s-\s)\s*\S|\s+(?:since|for\s+(?:\d+|years|months|ages|a\s+decade|"
    r"most\s+of\s+my\s+life))\b)", re.I)
# What would make the label a sentence of its own ("Paris is lovely, …"), or someone
# else's ("Sarah, my sister, …" is still the user's; "he said, …" is not).
_VERBISH_EN = re.compile(
    r"\b(?:is|are|am|was|were|be|been|being|has|have|had|do|does|did|will|would|can|could|"
    r"should|may|might|must|shall|i|i'm|you|he|she|it|we|they|said|says|told|went|got|"
    r"\w+'s|\w+'re|\w+'ve|\w+'ll|\w+'d)\b", re.I)
# A request, not a label: "Make this deck light-themed, …", "Go deep: how do …"
_ACTS_EN = re.compile(rf"(?:{_VERBS_EN}|make|go|let|try|get|do|see|look|check|find|help|"
                      r"keep|turn|set|add|remove|fix|explain|describe|compare|note|"
                      # what one is doing: "Running late, sorry", "Heading out, bye"
                      r"(?!(?:wedding|spring|king|ring|thing|nothing|something|anything|"
                      r"everything|evening|morning|ceiling|building|sibling|string|swing)\b)"
                      r"[a-z]{2,}ing|"
                      # an event: "tried ticktick for a week, love it"
                      rf"{_EVENTS_EN}|read\s+(?:a|an|the))"
                      r"(?![\w-])|"
                      r".*\b(?:this|that|these|those|me|us)\b", re.I)
# A comment on a thing: "Beautiful city, the old town is gorgeous"
_OWN_SUBJECT_EN = re.compile(r"(?:the|this|that|it|its|it's|they|there|he|she)\b", re.I)
_ASKS_EN = re.compile(r"(?:is|are|was|were|do|does|did|can|could|would|will|should|what|"
                      r"how|why|when|where|who|which)\b", re.I)
_LABEL_ZH = re.compile(
    r"^\s*(?P<label>(?!好的|谢谢|哈哈|嗯|哇|早上好|晚安|收到|行|可以|不错|厉害|好吧|对|是的|没事|"
    r"今天|明天|昨天|刚才|现在|这|那|你|他|她|它|我)[\u4e00-\u9fffA-Za-z0-9]{2,10})"
    r"(?:(?P<colon>\s*[：:]\s*)|[\s，,]+)(?P<rest>\S.*)$")
_ZH_STATUS = re.compile(r"^(?:[\u4e00-\u9fff]{2,4}中|今年[\d一二三四五六七八九十]+岁?|"
                        r"[\d一二三四五六七八九十]{1,3}岁)\s*$")
_NOT_A_FIELD = re.compile(r"注意|提醒|备注|问题|总结|标题|翻译|原文|例子|答案|更新|通知|公告|重点|"
                          r"结论|原因|结果|比如|例如|补充")


def self_label(text: str) -> bool:
    """Does the line open with a label of the speaker ("Vegetarian, 8 years now", "素食 但吃
    鸡蛋和牛奶")?"""
    m = _LABEL_EN.match(text)
    if m and not _VERBISH_EN.search(m.group("label")) and not text.rstrip().endswith("?") \
            and not _ACTS_EN.match(m.group("label")):
        after = text[m.end("label"):].lstrip(" ,;:—–-")
        if not _ASKS_EN.match(after) and not _OWN_SUBJECT_EN.match(after):
            return True
    m = _LABEL_ZH.match(text)
    if not m or re.search(r"[是有在说要会想去来吗呢了用写做发买打吃喝看听玩]", m.group("label")):
        return False
    if m.group("colon"):
        # "职业：产品经理", "体重：75公斤" (not "注意：…", "问题：…")
        return len(m.group("label")) <= 4 and not _NOT_A_FIELD.search(m.group("label"))
    # the rest says more of the speaker: "甲减 每天早上吃优甲乐", "二型糖尿病 控糖中"
    return any(unsaid_self(part) or _ZH_STATUS.match(part)
               for part in re.split(r"[\s，,]+", m.group("rest")) if part)


# Chinese chat leaves the speaker unsaid whenever it is the speaker: "对花生过敏", "每周二晚上
# 去游泳", "在读研 方向是NLP", "咖啡只喝美式". A line that opens with a predicate (after
# openers and words of when or how often) has the speaker as its subject; one that opens
# with a noun has that noun ("猫一天要睡十几个小时", "长城有两千多年的历史"). Two forms only:
# a predicate of the kind one says of oneself (having, being, doing, using, living,
# learning, not doing …), and a thing first with what the speaker does with it
# ("笔记都用Notion记"). What happens at this moment ("正在吃午饭呢", "在机场等飞机呢") is
# not a lasting fact.
_ZH_OPEN = (r"^\s*(?:(?:其实|对了|顺便说一下|顺便|补充一下|另外|还有|哦|嗯|诶|说一下|跟你说|"
            r"告诉你|是这样|但是?|不过|而且)[，,：:\s]*)?")
_ZH_WHEN = (r"(?:平时|平常|一般|通常|基本上?|每天|每晚|每早|每周[一二三四五六日天]?|每个?月|"
            r"每年|每个?(?:星期|礼拜)[一二三四五六日天]?|周末|工作日|下班后?|"
            r"从小|一直|向来|从来|目前|现在|最近|今年|这几年|这些年|已经|早就|还|也|都|就|"
            r"只|常|经常|老是|总是|偶尔|一周|一年|长期|天天)")
# Words of degree and of how surely (a closed class of adverbs, not topics).
_ZH_HOW = (r"(?:特别|超级|超|贼|巨|非常|很|挺|比较|十分|相当|极其|有点|有些|不太|太|蛮|"
           r"必须|只能|只会|绝不|绝对不|决不|从不|从来不|不怎么|尽量|坚持|实在|真的)+")
_ZH_SAYS_OF_SELF = (
    r"有(?!人|点|些|个|一个|位|次|没有|一说)|没有|没(?!事|关系|问题|想到)|不(?!好意思|客气|过|然|知道|用谢)|"
    r"在(?!这|那|哪|吗)|会(?!不会)|不会|爱|怕|恐|用|吃|喝|住|养|开|骑|坐|做|干|学|读|考|练|"
    r"出门|回家|到家|出发|下班|打算|准备|计划|想(?!问|知道|吃|喝)|信|戒|攒|减|备|喜欢|讨厌|习惯|偏好|受不了|去|上|带|送|"
    r"打|跑|游|睡|起|穿|戴|看|听|玩|写|教|当|属|来自|老家|家在|家里|人在|本人|自己|已婚|"
    r"未婚|单身|离异|独居|近视|远视|晕车|失眠|通勤|"
    # a noun that names what is one's own: "母语是粤语", "专业是土木"
    r"(?:母语|老家|家乡|专业|职业|血型|星座|生日|身高|体重|属相|学历)(?:是|在|为)|对[^，。！？,.!?\s]{1,8}过敏|"
    # the speaker's own body, said with its state: "血压有点高", "眼睛不太好", "腰间盘突出"
    r"(?:血压|血糖|血脂|尿酸|视力|眼睛|肠胃|胃|腰间盘|腰椎|颈椎|腰|膝盖|牙齿?|皮肤|睡眠|记性|体质|"
    r"身体|心脏|嗓子|头发)(?:一直|有点|有些|不太|比较|很|特别|偏|也|都)*(?:高|低|差|弱|不太?好|不太?行|"
    r"敏感|突出|有问题|不舒服)(?!的)|"
    r"[^，。！？,.!?\s]{1,6}过敏")
_UNSAID_SELF_ZH = re.compile(
    # (a part of the day only after a word of how often: "每天早上六点半跑步", not "中午想吃
    # 顿好的", which is today's lunch)
    _ZH_OPEN + rf"(?:(?:(?:{_ZH_WHEN})[一二三四五六日天]?\s*)+"
    r"(?:(?:早上|晚上|中午|上午|下午)\s*)?)?"
    r"(?:(?:[零一二两三四五六七八九十\d]{1,3}点(?:半|[零一二三四五\d]{1,2}分?)?|\d{1,2}[:：]\d{2})"
    r"(?:左右)?\s*(?:才|就)?)?"
    # how much or how surely, before the predicate: "特别怕冷", "贼讨厌开会", "绝不吃香菜"
    # (not before 有/没/不 alone: "很有意思", "真的不行", "实在没办法" are reactions)
    rf"(?:{_ZH_HOW}(?!有|没|不))?"
    rf"(?P<says>{_ZH_SAYS_OF_SELF})"
    # a thing first, then what the speaker does with it: "咖啡只喝美式", "笔记都用Notion记"
    r"|^\s*(?![我你您他她它咱俺])[\u4e00-\u9fffA-Za-z]{1,6}(?:只|都|一般|基本|从来|从不|一直|也|就|向来|平时|主要|"
    r"一律|全)+(?:不|没)?(?:喝|吃|用|看|听|玩|买|穿|开|坐|去|住|记|写|读|学|练|打|骑|戴|碰|选)")
# A question ("…会不会下雨", "…吗") or a condition ("周末去爬山的话", "要是…") says nothing
# that holds.
_ZH_ASKS_OR_IMAGINES = re.compile(r"([\u4e00-\u9fff])不\1|的话|如果|(?<![主需只重就还想正总])要是|"
                                  r"假如|万一|[吗么？?]|"
                                  r"什么|怎么|哪|多少|几[个点号天]")
# Someone else ("他对花生过敏"), the thing at hand (这/那 and a measure word: "不喜欢这个答案，
# 再来一个", "超级喜欢这首歌"), the assistant or what it said ("喜欢你的回答"), one of the
# options offered ("比较喜欢第二个"), or an event just over ("考试终于考完了").
_ZH_NOT_SELF = re.compile(r"^\s*(?:他|她|它|ta|TA)|[这那](?:个|些|篇|段|份|次|版|首|部|本|家|款|张|"
                          r"道|条|件|台|双|套|位|只|杯|碗|盘|瓶|句|集|期|场|趟)|你|您|"
                          r"第[一二三四五六七八九十\d]+|完了\s*$|完啦\s*$")
_ZH_MOMENT = re.compile(r"^\s*(?:正在|在[^，。！？,.!?\s]{0,6}(?:等|排队)|刚)|呢\s*[~～!！。]*\s*$")


def with_speaker(text: str) -> tuple[str, int] | None:
    """The line with its unsaid speaker said, and how much was put in front, for the slots'
    patterns, which name the speaker: "上个月搬到成都了" -> "我上个月搬到成都了", "living in
    Hackney now" -> "I'm living in Hackney now". None when the line names whom it is about
    (anyone: "我…", "他…", "公司…", "我妈…", "the office moved…") or opens otherwise."""
    if THIRD.match(text) or OTHER_SUBJECT.search(text):
        return None
    if re.match(r"\s*[\u4e00-\u9fff]", text):
        # (not "叫小李来一下": calling someone over is a task, not the user's name)
        return None if re.search(r"[我咱俺你您他她它]", text) or re.match(r"\s*叫", text) \
            else ("我" + text, 1)
    m = _SPEAKER_UNSAID_EN.match(text)
    if not m:
        return None
    said = "I'm " if m.group("verb").lower().endswith("ing") else "I "
    return text[:m.start("verb")] + said + text[m.start("verb"):], len(said)


# Where a clause starts after a space or a comma between Chinese words, or after a comma in
# English ("got the keys today, living in Hackney now").
_CLAUSE_START = re.compile(r"(?<=[\u4e00-\u9fff！!～~])[\s，,]+(?=[\u4e00-\u9fff])|"
                        r"(?<=[A-Za-z])\s*[,;]\s+(?=[a-z])")


# Someone named before such a clause is whom it is about ("我妈 现在住杭州了").
_SOMEONE = re.compile(r"(?i:\b(?:I|I['’]m|me|my|he|she|they|his|her|their|we|our|you|your)\b)|"
                        r"[我你您他她它咱俺]|妈|爸|哥|姐|弟|妹|老公|老婆|媳妇|儿子|女儿|闺女|"
                        r"孩子|娃|朋友|同事|老板|领导|室友|邻居|爷|奶|外公|外婆|"
                        r"[老小][王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾]")


def speaker_clauses(body: str) -> list[int]:
    """The line's start, then each clause's (a speaker left unsaid in it) while no one
    has been named before it."""
    starts = [0]
    for m in _CLAUSE_START.finditer(body):
        before = body[:m.start()]
        # (nor something else said first: "公司 搬到望京了", "the office, moved to Leeds")
        if _SOMEONE.search(before) or OTHER_SUBJECT.search(before) or THIRD.match(before) \
                or _THING_FIRST_ZH.search(before):
            break
        starts.append(m.end())
    return starts


# A place, a body or a thing of which a later clause may be said ("公司 搬到望京了", "店
# 搬到二楼了", "宿舍 换到三号楼了").
_THING_FIRST_ZH = re.compile(r"公司|单位|团队|部门|学校|店|门店|工作室|办公室|宿舍|医院|健身房|"
                             r"银行|工厂|诊所|幼儿园|机构|项目|会议|课")


# A line that opens with what the speaker does or did: "living in Hackney now", "moved to
# Leeds last month" (not "getting late", not a question)
_SPEAKER_UNSAID_EN = re.compile(
    rf"^\s*(?:{_OPENER_EN}[,:!-]?\s+)*(?:just\s+|finally\s+|recently\s+|also\s+|now\s+)?"
    r"(?P<verb>(?!(?:getting|going|being|nothing|something|anything|everything|morning|"
    r"evening)\b)[a-z]{2,}(?:ing|ed))\b(?![^.!?]*\?)"
    # the gerund as a subject: "living in the past is pointless"
    r"(?![^.!?]*\b(?:is|are|was|were|you|your)\b)", re.I)


def unsaid_self(text: str) -> bool:
    """Chinese with the speaker unsaid: a line that opens with a predicate one says of
    oneself ("对花生过敏", "在学吉他 自学了半年了")."""
    if not re.search(r"[\u4e00-\u9fff]", text[:8]) or _ZH_MOMENT.search(text) \
            or THIRD.match(text) or _ZH_ASKS_OR_IMAGINES.search(text) \
            or _ZH_NOT_SELF.search(re.split(r"[，,。！!？?；;]", text)[0]):
        return False
    m = _UNSAID_SELF_ZH.match(text)
    if not m:
        return False
    if m.group("says") is None:
        return True
    # The predicate must not be the first character of another word: 上 in "上海", 看 in
    # "看到个段子", 养 in "养生节目" ("跑步", "上班", "养猫" are the predicate with its object).
    rest = text[m.start("says"):]
    first = next(iter(jieba.cut(rest, HMM=False)), "")
    # A word followed by what is said of it is its subject: "开销太大了", "上班好累".
    said = m.end("says") - m.start("says")
    return first not in _NOT_A_PREDICATE and not (
        said <= len(first) > 1 and _SAID_OF_IT.match(rest[len(first):]))


_SAID_OF_IT = re.compile(r"\s*(?:的|太|很|挺|真|特别|好|比较|非常|也太|是|有)")


_NOT_A_PREDICATE = frozenset(
    "上海 上面 上次 上周 上个月 上午 下午 用户 学校 学生 玩具 会议 会员 去年 当年 当时 当然 "
    "看到 看见 看看 看法 听说 听到 养生 开心 爱心 用餐 信息 信用 起来 不过 不错 不如 不管 不少 "
    "在于 有的 有时 有些 有点 没想到 考试".split())


# Someone or something else as the subject: "There are no more emails", "The explanation
# was too long", "你还是先休息吧", "这份报告…".
OTHER_SUBJECT = any_of(
    r"^\s*(?:there|the|this(?!\s+(?:week|month|year|morning|evening))|that|"
    r"these(?!\s+days)|those|it|it's|he|she|they|you|your|his|her|their|"
    r"everyone|everybody|nobody|someone|people)\b",
    r"^\s*(?:你|您|他|她|它|他们|她们|这|那|大家|别人|有人|客户|老板|同事|领导|公司|文章|新闻|"
    r"书上|网上|看看|听说)")


def open_statement(text: str) -> bool:
    """A sentence that may change what it matches though it is not a statement on its
    own: about the user ("Wingspan has overtaken Catan as my favourite"), settling a
    change ("Malta is booked! Final."), or announcing one with no one else as its subject
    ("ditched notion for obsidian", "oat milk is out"). Never a task, a question to the
    assistant, thinking aloud or one occasion."""
    if not names_something(text) or MUSING.search(text) or TASK.search(text):
        return False
    if one_time(text) and not _FROM_NOW_ON.search(text):
        return False
    if SPEAKER.search(text) or _DID.search(text):
        return True
    if re.match(r"\s*it['’]?s\b", text, re.I) and changes_mind(text):
        return True  # "Dropped Spanish. It's Japanese on Duolingo now": the new value
    if not OTHER_SUBJECT.search(text):
        return settles(text) or changes_mind(text)
    # A thing, not a person, said to change in so many words ("the gym is putting the
    # membership up", "the standup moved to 10"): it may be what a memory is about.
    # So may a thing turned against ("the emoji thing has gotten kinda old", "the recap at
    # the end is a bit much"): a preference for it may be what it turns around.
    return (marks_change(text) or polarity(text) < 0) and bool(_THING.search(text))


# What the speaker did, "I" unsaid ("traded in the civic for a tesla", "started an audiobook
# on the side"): one event as often as a lasting change ("bought milk on the way home",
# "moved the meeting to 3pm"), so it is kept only if it changes a memory it matches.
_DID = re.compile(
    _LEAD_EN +
    r"(?:started|stopped|switched|moved|traded|bought|sold|adopted|joined|signed\s+up|"
    r"took\s+up|picked\s+up|gave\s+up|quit|began|caved|growing|learning)\b"
    r"(?![^.!?]*\byou(?:r)?\b)", re.I)


# A thing named with a determiner ("the gym", "this plan"), not a pronoun ("there are no
# more emails", "it's…") or a person.
_THING = re.compile(r"^\s*(?:the|this|that|these|those)\s+(?!(?:one|ones|is|was|are|were)\b)"
                    r"[a-z'‘“\"]", re.I)


def names_something(text: str) -> bool:
    """Does the sentence say what it is about, beyond pronouns and framing? A time or an
    amount counts ("I get up at 6am": no content word but the value)."""
    return bool(content_words(core(text)) or _MEASURED.search(text))


# A time or an amount with its unit: "6am", "7:40", "300字", "2 kids".
_MEASURED = re.compile(r"\d+\s*(?:am|pm|:\d\d|[a-z]{1,5}\b|[\u4e00-\u9fff])", re.I)
