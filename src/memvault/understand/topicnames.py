"""What each topic class (topicscore.py) is called: the words a user names a whole class
by when taking it back ("forget my medication", "删掉我用药那条", "delete the bit about my
pets").

A take-back that names a class by one of these words, with exactly one memory of that
class among its matches, means that memory: "my medication" is every memory about
medication, and there is one ("I take sertraline every morning"). A take-back that names
a thing within a class ("forget what I said about my cat") is not this: the one pet memory
may be the dog, so it stays a guess for a person (relate.py).
"""

from __future__ import annotations

import re

__all__ = ["adds_up", "names_class"]

# Classes whose values add up rather than replace one another: a second allergy, pet,
# medication, condition or language is one more, not a change of the first, unless the
# user says it replaces it ("switched", "instead", "no longer"). (Tastes are not here:
# "迷上泰餐了" after "最近迷上了韩餐" moves on.) With each, the words its statements relate
# the user to a value by ("allergic to", "take", "养", "诊断"): two statements that share
# only these name two values of it; sharing another ("sertraline") they name the same one.
_FRAMES: dict[str, tuple[str, ...]] = {
    "allergy": ("allerg", "react", "过敏"),
    "medication": ("take", "taking", "medic", "meds", "pill", "prescri", "daily", "吃", "服",
                   "药"),
    "health_condition": ("diagnos", "suffer", "condition", "诊断", "患", "确诊"),
    "languages_spoken": ("speak", "language", "fluent", "learn", "说", "会", "语", "学"),
    "pets": ("have", "got", "adopt", "pet", "name", "养", "宠物", "叫"),
}


def adds_up(topic: str, shared: set[str]) -> bool:
    """Do the values of the topic class add up (a second allergy is one more), and do two
    statements that share the words `shared` name two values of it, not one?"""
    frames = _FRAMES.get(topic)
    return frames is not None and all(any(f in w for f in frames) for w in shared)

_NAMES: dict[str, tuple[str, ...]] = {
    "airline_seat": ("airline", "airlines", "航空公司"),
    "alcohol": ("alcohol", "drinking", "喝酒", "饮酒"),
    "allergy": ("allergy", "allergies", "过敏"),
    "bank": ("bank", "banking", "银行", "工资卡"),
    "budget": ("budget", "预算"),
    "car": ("car", "车"),
    "children": ("kids", "children", "孩子", "小孩"),
    "clothing_size": ("size", "sizes", "clothing size", "尺码"),
    "code_editor": ("editor", "code editor", "编辑器"),
    "coffee_tea_order": ("coffee order", "coffee", "咖啡"),
    "commute": ("commute", "通勤"),
    "computer_os": ("operating system", "os", "操作系统"),
    "cuisine_taste": ("cuisine", "cuisines", "菜系"),
    "diet_type": ("diet", "饮食"),
    "education": ("education", "degree", "学历"),
    "employer": ("employer", "job", "work", "工作", "公司"),
    "exercise_routine": ("exercise", "workout", "workouts", "gym", "运动", "健身"),
    "file_format": ("format", "file format", "格式"),
    "grocery_store": ("groceries", "grocery", "supermarket", "超市", "买菜"),
    "health_condition": ("health", "health condition", "病情"),
    "housing_type": ("housing", "住房"),
    "job_role": ("job", "role", "title", "job title", "职位", "工作"),
    "languages_spoken": ("languages", "语言"),
    "medication": ("medication", "medications", "meds", "medicine", "medicines", "pills",
                   "prescription", "药", "用药", "吃药", "药物"),
    "music_taste": ("music", "音乐"),
    "name_address": ("name", "nickname", "名字", "称呼"),
    "notes_app": ("notes", "note app", "笔记"),
    "notify_channel": ("notifications", "notification", "通知"),
    "parents_family": ("parents", "family", "父母", "爸妈", "家人"),
    "partner": ("partner", "relationship", "boyfriend", "girlfriend", "spouse", "对象", "伴侣",
                "男朋友", "女朋友"),
    "pets": ("pet", "pets", "宠物"),
    "phone_device": ("phone", "手机"),
    "reading_genre": ("reading", "books", "看书"),
    "reply_language": ("language", "语言"),
    "reply_length": ("answer length", "length", "长度", "篇幅"),
    "reply_tone": ("tone", "语气"),
    "residence": ("address", "home", "home address", "住址", "地址", "住哪"),
    "sleep_schedule": ("sleep", "sleep schedule", "睡眠", "作息"),
    "smoking": ("smoking", "抽烟", "吸烟"),
    "social_media": ("social media", "社交媒体"),
    "sport_played": ("sport", "sports", "运动"),
    "sports_team": ("football team", "球队"),
    "streaming_service": ("streaming", "subscriptions", "会员"),
    "time_format": ("time format", "时间格式"),
    "units": ("units", "单位"),
    "weekend_plans_habit": ("weekends", "weekend", "周末"),
    "weight_goal": ("weight", "weight goal", "体重", "减肥"),
    "work_chat_app": ("chat app", "work chat", "办公软件"),
    "work_language": ("programming language", "编程语言"),
    "work_schedule": ("work schedule", "working hours", "work hours", "上班时间"),
}

# Words a label wraps the class's name in: "the medication info", "my meds stuff".
_WRAP = re.compile(r"\b(?:my|the|our|all|any|about|info|information|details?|stuff|thing|"
                   r"things|bits?|one|ones|part|note|notes on|entry|record)\b|"
                   r"我的|我|的|那条|这条|那个|这个|信息|事情|事|记录|相关|有关|关于", re.I)


def names_class(label: str, topic: str | None) -> bool:
    """Does `label`, what a take-back names, name the class `topic` itself (nothing but
    one of its names, in a wrapper such as "the … info")?"""
    names = _NAMES.get(topic or "")
    if not names:
        return False
    bare = " ".join(_WRAP.sub(" ", label.casefold()).split())
    return bare in names
