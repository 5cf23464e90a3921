"""What-ifs: a sentence that imagines, supposes or dreams rather than says how things
stand ("what if we always used XLSX?", "if I won the lottery I'd…", "要是哪天中了彩票，我就…",
"in another life I'd have been a chef"). The rule extractor keeps nothing from one
(extract/rules.py, replies.py, calledoff.py).
"""

from __future__ import annotations

from .cues import any_of

# A game or a scene: "pretend you're a travel agent and I just moved to Tokyo", "角色扮演
# 一下，假装我是新来的实习生" (not "pretend I never said it", a take-back), or one that
# frames it ("fun one: imagine I…"). What the rest of its message says is in the scene.
_SCENE = (r"\b(?:let'?s\s+)?pretend\b(?!\s+(?:that\s+)?i\s+never\b)|"
          r"\brole[\s-]?play|\bmake[\s-]?believe\b|"
          r"[:：—–]\s*(?:suppose|imagine|let'?s\s+say)\b|"
          r"扮演|(?:^|[，,:：\s])假装(?:我|你)|就当(?:我|你)是")
SCENE = any_of(_SCENE)

# Thinking aloud about a choice is not making it: "what if we always used XLSX?",
# "如果以后都用 XLSX 会怎样".
# The if-clause of a second conditional: the past for what is not so ("if I won…").
_PAST_IF = (r"(?:won|had|got|were|was|could|lived|moved|went|did|didn'?t|lost|knew|owned|"
            r"quit|retired|left|found|bought|sold|married|inherited)\b")
# "I'd like / prefer / appreciate … if …" is a wish, however it is put.
_WISH = (r"(?:(?:always|really|much|also|definitely)\s+)?(?:like|love|prefer|rather|"
         r"appreciate|want|be\s+grateful|be\s+happy|be\s+glad|welcome)\b")
HYPOTHETICAL = any_of(r"\bwhat if\b", r"\bwhat would happen\b", r"\bhypothetically\b",
                      r"^\s*(?:suppose|imagine|say|let's say|let us say)\b",
                      r"^\s*if\s+I\s+(?:moved|lived|were|was|had|went|switched)\b",
                      # a day that may never come: "if an Aldi ever opens here I'm done
                      # with Tesco" (not "if you ever need me…" nor "if I ever ask for a
                      # recipe, use grams": standing requests)
                      r"^\s*if\s+(?!you\b|u\b)[^,.!?;]{0,60}\bever\b[^.!?;]*?[\s,]"
                      r"(?:I|I'm|I'll|I'd|we|we'll|we're|my)\b",
                      # a second conditional, either way round, a frame first or not: "if I
                      # got the job I'd…", "lottery dream: if I won I'd…", "I'd quit
                      # tomorrow if I won the lottery"
                      rf"(?:^\s*|[:：—–]\s*)if\s+(?:I|we)\s+{_PAST_IF}[^.!?;]*?\b(?:I|we)(?:'d|\s+would|"
                      rf"\s+could|\s+might)\s+(?!{_WISH})",
                      rf"\b(?:I|we)(?:'d|\s+would)\s+(?!{_WISH})[^.!?;]*\bif\s+(?:I|we)\s+"
                      rf"{_PAST_IF}",
                      r"^\s*if\s+(?:I|we)\b.*\bwould\s+(?:I|we|it|that)\b",
                      r"^\s*(?:if|would)\b.*\?",
                      r"(?:如果|假如|假设|要是|万一).{0,30}(?:会怎样|会怎么样|会如何|会不会|"
                      r"怎么样|好不好|行不行|可以吗|行吗|呢|是不是|难不难|能不能|需不需要|用不用|"
                      r"你觉得|你说)", r"^\s*(?:假如|假设)",
                      # a day that may come and what would then follow ("要是哪天中了彩票，我
                      # 就辞职去环游世界"): neither holds now; not a habit ("如果加班，我就不吃
                      # 晚饭") nor one about the assistant ("如果你哪天联系不上我，就打我老婆的
                      # 电话", a standing request)
                      r"^\s*(?:(?:如果|假如|要是)(?!你|您)[^。！？!?，,]{0,6}?)?(?:哪天|有一天|有朝一日|万一)"
                      r"[^。！？!?]{1,30}?[，,\s]+(?:那)?"
                      r"(?:我|我们|咱们?)?(?:就|肯定|一定|立马|马上)",
                      r"你说.{0,6}(?:要是|如果|假如|万一)",
                      # a frame first ("random shower thought: if I quit teaching … would a
                      # bootcamp cut it"): what follows it is still the what-if
                      r"^[^.!?:：]{0,40}[:：—–]\s*if\s+(?:I|we)\b.*\b(?:would|could|should)\s+"
                      r"(?:I|we|it|that|a|an|the)\b",
                      # still deciding: "我在考虑要不要改成邮件", "thinking about switching"
                      r"要不要|在考虑|考虑一下|犹豫", r"\b(?:thinking|thought) (?:about|of)\b",
                      r"\bconsidering\b", r"\bnot sure (?:if|whether)\b",
                      # what is not so: "if I weren't allergic I'd…", "in another life I'd
                      # have…", "I wish I could…", "要是我不是…就好了", "下辈子…"
                      r"\bif\s+(?:only\s+)?(?:I|we)\s+(?:weren'?t|wasn'?t|were|had(?:n'?t)?|"
                      r"didn'?t|could(?:n'?t)?)\b", r"\bif\s+only\b",
                      r"\bin\s+(?:another|a\s+different|a\s+parallel|my\s+next|an?\s+ideal|"
                      r"a\s+perfect)\s+(?:life|world|universe)\b",
                      r"\b(?:I|we)(?:'d|\s+would|\s+could|\s+might)\s+have\s+(?:been|\w+ed|"
                      r"\w+en)\b", r"\b(?:would|could|might)'?ve\b",
                      r"\b(?:I|we)\s+wish\s+(?:I|we)\b",
                      r"下辈子|要不是|(?:要是|如果|假如)[^。！？]{0,20}就好了",
                      # a condition with what the speaker would then surely or gladly do
                      # ("要是住得近一点，我肯定天天骑车上班", "以后要是…买了房，我想养几只鸡"), or
                      # would have done ("要是利率高点我就转过去了，可惜没有"); not a condition
                      # on what the assistant should do ("如果我没回消息，就打我电话"), nor a
                      # habit ("如果加班，我就不吃晚饭")
                      r"(?:如果|要是|假如|万一)(?!可以|方便)(?![^。！？]*(?:你|给我|叫我|提醒我|"
                      r"告诉我|通知我|打我|发我|找我))[^。！？]{1,24}?(?:(?:我|那我|[，,\s])\s*)"
                      r"(?:肯定|一定|准|大概|估计|想|可能)",
                      r"(?:如果|要是|假如)[^。！？]{1,24}?就[^。！？]{0,12}了[，,\s]*(?:可惜|但是?|不过)",
                      # a plan for something the user would first have to get: the plan
                      # names it by a pronoun ("如果我养狗，就给它起名叫馒头", "if I ever
                      # have a daughter I'd call her Maya")
                      r"(?:如果|要是|假如|万一)[^。！？，,]{0,12}(?:养|买|有|生|领养|收养|捡)"
                      r"[^。！？]{0,16}?(?:给|叫|让|带|陪|把)(?:它|她|他)",
                      r"\bif\s+(?:I|we)\s+(?:ever\s+)?(?:get|have|adopt|buy|got|had|adopted|"
                      r"bought)\s+(?:a|an|another)\b[^.!?]{0,40}?\b(?:name|call)\s+(?:it|her|him|"
                      r"them)\b",
                      r"\bday\s*dream\w*|\bfantasi[sz]\w*|\bdream(?:s|ing)?\s+(?:of|about)\b|"
                      r"\bpart\s+of\s+me\s+(?:wants|wishes|thinks)\b|幻想|白日梦|做梦都想",
                      _SCENE,
                      # a figure of speech, not where the user lives: "I basically live at
                      # the office these days", "we practically live in the car", "简直住
                      # 在公司了", "以公司为家" (not a named place: "I basically live in
                      # Berlin now")
                      r"\b(?:basically|practically|virtually|pretty\s+much|all\s+but|"
                      r"more\s+or\s+less|might\s+as\s+well)\s+live\s+(?:at|in|on|off)\s+"
                      r"(?:(?:the|my|our|this|that|a)\s+)?(?-i:[a-z])|"
                      r"(?:简直|都快|快要|就差)(?:要|就)?住(?:在|进)|以[^，。！？,\s]{1,6}为家|"
                      r"把[^，。！？,\s]{1,6}当(?:成|作|做)?(?:家|宿舍)")
