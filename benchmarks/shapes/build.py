"""Writes shapes.jsonl: memvault's own retrieval set for conversation shapes LoCoMo lacks
(issue 24 part 6). Written before any retrieval change; never edited to fit results.

Shapes: independent statements said hours apart (en, zh), an exchange whose session
crosses midnight (en), friends' chat whose informative turns end with a question (zh, en).
Every message carries its own time. Query split: sha256(query id) first byte odd = holdout.
"""
# ruff: noqa: E501  (the conversations below are data: one message a line)
import hashlib
import json
from datetime import datetime
from pathlib import Path

# conv: (lang, shape, [(at, speaker, role, text)], [(qid, text, [gold turn numbers])])
CONVS = {
 "c1": ("en", "independent", [
  ("2026-03-02T08:10", "Maya", "user", "Priya is my cousin, she's 164 cm and plays volleyball."),
  ("2026-03-02T12:40", "Maya", "user", "Tom from accounting is my manager; he wants weekly reports every Thursday."),
  ("2026-03-02T19:05", "Maya", "user", "My landlord Mr. Alvarez said the rent goes up to 1,450 in May."),
  ("2026-03-03T07:55", "Maya", "user", "Booked a dentist appointment with Dr. Kim for March 19 at 3pm."),
  ("2026-03-03T13:20", "Maya", "user", "Priya's birthday is on June 4, she wants a film camera."),
  ("2026-03-03T21:45", "Maya", "user", "Finished reading The Overstory, gave it 4 stars."),
  ("2026-03-04T09:30", "Maya", "user", "Tom is out on paternity leave until April 10, Sara covers for him."),
  ("2026-03-04T18:15", "Maya", "user", "My bike's rear tire keeps going flat; the shop on Elm Street quoted 40 dollars."),
  ("2026-03-05T10:05", "Maya", "user", "Sara prefers Slack messages over email for anything urgent."),
  ("2026-03-05T16:50", "Maya", "user", "Planning a trip to Kyoto in October with my brother Daniel."),
  ("2026-03-06T08:25", "Maya", "user", "Daniel is allergic to shellfish, so no seafood restaurants."),
  ("2026-03-06T14:00", "Maya", "user", "Started a pottery class on Wednesdays at 7pm at the community center."),
  ("2026-03-06T22:10", "Maya", "user", "Mr. Alvarez will fix the kitchen sink on Saturday morning."),
  ("2026-03-07T11:35", "Maya", "user", "My neighbour Ruth waters my plants when I travel; she likes lemon cake."),
  ("2026-03-07T17:20", "Maya", "user", "The car insurance renewal is due on April 1, premium went up to 890."),
  ("2026-03-08T09:00", "Maya", "user", "Dr. Kim's office moved to 22 Harbour Road."),
 ], [
  ("c1q1", "How tall is my cousin Priya?", [1]),
  ("c1q2", "When does Tom want the weekly reports?", [2]),
  ("c1q3", "How much will the rent be in May?", [3]),
  ("c1q4", "When is my dentist appointment?", [4]),
  ("c1q5", "What does Priya want for her birthday?", [5]),
  ("c1q6", "Who covers for Tom while he is on leave?", [7]),
  ("c1q7", "How should I contact Sara about something urgent?", [9]),
  ("c1q8", "Who am I travelling to Kyoto with?", [10]),
  ("c1q9", "What food does Daniel need to avoid?", [11]),
  ("c1q10", "When is my pottery class?", [12]),
  ("c1q11", "What cake does Ruth like?", [14]),
  ("c1q12", "Where is Dr. Kim's office now?", [16]),
  ("c1q13", "What did the bike shop quote for the tire?", [8]),
  ("c1q14", "When is the sink going to be fixed?", [13]),
 ]),
 "c2": ("zh", "independent", [
  ("2026-03-02T08:20", "小林", "user", "王芳是我的表妹，身高164cm，在杭州读研究生。"),
  ("2026-03-02T13:10", "小林", "user", "李总是我的上司，开会最讨厌别人迟到。"),
  ("2026-03-02T20:30", "小林", "user", "房东张阿姨说下个月开始房租涨到3200。"),
  ("2026-03-03T09:00", "小林", "user", "约了牙医周医生，3月18号下午两点。"),
  ("2026-03-03T15:40", "小林", "user", "王芳下个月过生日，她想要一个拍立得。"),
  ("2026-03-03T22:15", "小林", "user", "《三体》终于看完了，第三部最好看。"),
  ("2026-03-04T10:25", "小林", "user", "李总下周去深圳出差，周报先发给陈姐。"),
  ("2026-03-04T19:50", "小林", "user", "电动车的电池不太行了，店里说换一块要六百。"),
  ("2026-03-05T08:45", "小林", "user", "陈姐说急事打电话，别发微信。"),
  ("2026-03-05T17:30", "小林", "user", "十月份打算和我哥去成都玩一周。"),
  ("2026-03-06T09:15", "小林", "user", "我哥对花生过敏，吃饭要注意。"),
  ("2026-03-06T14:20", "小林", "user", "报了个游泳班，每周六上午十点。"),
  ("2026-03-06T21:40", "小林", "user", "张阿姨说周日上午来修热水器。"),
  ("2026-03-07T12:10", "小林", "user", "楼下的刘奶奶帮我喂猫，她爱吃桂花糕。"),
  ("2026-03-07T18:05", "小林", "user", "车险4月1号到期，今年报价1900。"),
  ("2026-03-08T10:30", "小林", "user", "周医生的诊所搬到了文三路88号。"),
 ], [
  ("c2q1", "我表妹王芳多高？", [1]),
  ("c2q2", "李总最讨厌什么？", [2]),
  ("c2q3", "下个月房租多少？", [3]),
  ("c2q4", "牙医约在什么时候？", [4]),
  ("c2q5", "王芳生日想要什么？", [5]),
  ("c2q6", "李总出差的时候周报发给谁？", [7]),
  ("c2q7", "陈姐有急事怎么联系？", [9]),
  ("c2q8", "十月份和谁去成都？", [10]),
  ("c2q9", "我哥对什么过敏？", [11]),
  ("c2q10", "游泳班是什么时候？", [12]),
  ("c2q11", "刘奶奶喜欢吃什么？", [14]),
  ("c2q12", "周医生的诊所现在在哪里？", [16]),
  ("c2q13", "换电动车电池要多少钱？", [8]),
  ("c2q14", "热水器什么时候修？", [13]),
 ]),
 "c3": ("en", "crosses-midnight", [
  ("2026-04-11T23:20", "Jon", "user", "Can't sleep, the job offer from Northwind is on my mind."),
  ("2026-04-11T23:21", "assistant", "assistant", "What's making the decision hard?"),
  ("2026-04-11T23:25", "Jon", "user", "They offer 128k, but I'd have to move to Denver by June."),
  ("2026-04-11T23:26", "assistant", "assistant", "How does your partner feel about Denver?"),
  ("2026-04-11T23:40", "Jon", "user", "Alex is fine with it as long as we can keep the dog."),
  ("2026-04-11T23:41", "assistant", "assistant", "Pet-friendly rentals are common there. What about your current team?"),
  ("2026-04-11T23:58", "Jon", "user", "My current manager offered a raise to 115k if I stay."),
  ("2026-04-12T00:05", "assistant", "assistant", "That narrows the gap. Anything else in the mix?"),
  ("2026-04-12T00:20", "Jon", "user", "I told Northwind I'd answer by Friday, April 17."),
  ("2026-04-12T00:22", "assistant", "assistant", "Good. Do you want a pros and cons list?"),
  ("2026-04-12T00:40", "Jon", "user", "Yes, and remind me the signing bonus is 10k."),
  ("2026-04-12T00:41", "assistant", "assistant", "Noted the 10k signing bonus."),
  ("2026-04-14T20:05", "Jon", "user", "Toured Denver apartments today over video, one in Highlands for 2,300."),
  ("2026-04-14T20:06", "assistant", "assistant", "Does it allow dogs?"),
  ("2026-04-14T20:10", "Jon", "user", "Yes, dogs under 50 pounds, and Biscuit is 35."),
  ("2026-04-14T20:11", "assistant", "assistant", "Great fit then. Anything else?"),
  ("2026-04-14T20:30", "Jon", "user", "My sister Mei says she'll help us move in June."),
  ("2026-04-16T07:30", "Jon", "user", "Decided: I'm accepting the Northwind offer."),
  ("2026-04-16T07:31", "assistant", "assistant", "Congratulations! When do you tell your manager?"),
  ("2026-04-16T07:45", "Jon", "user", "Meeting him at 10 today; I'll give three weeks' notice."),
 ], [
  ("c3q1", "On April 12, what deadline did I give Northwind?", [9]),
  ("c3q2", "What signing bonus did I mention on April 12?", [11]),
  ("c3q3", "How much does Northwind pay?", [3]),
  ("c3q4", "What is my current manager offering if I stay?", [7]),
  ("c3q5", "How much is the Highlands apartment?", [13]),
  ("c3q6", "Does the apartment allow a dog of Biscuit's size?", [15]),
  ("c3q7", "Who is helping us move?", [17]),
  ("c3q8", "How much notice will I give?", [20]),
  ("c3q9", "What did I say about Alex on April 11?", [5]),
 ]),
 "c4": ("zh", "asks-back", [
  ("2026-04-03T19:00", "小雨", "user", "周末干嘛了？"),
  ("2026-04-03T19:02", "阿杰", "user", "去了趟莫干山，住的民宿在半山腰，早上起来全是云海，还去竹林里骑了车，晚上老板做了土鸡煲，特别好吃。你去过莫干山吗？"),
  ("2026-04-03T19:05", "小雨", "user", "没去过，我周末在家学做蛋糕，第一次做戚风就塌了。"),
  ("2026-04-03T19:06", "阿杰", "user", "哈哈，塌了也能吃嘛。"),
  ("2026-04-03T19:10", "小雨", "user", "下周五我要去上海面试，一家做游戏的公司，岗位是关卡策划。你觉得我该准备什么？"),
  ("2026-04-03T19:15", "阿杰", "user", "多准备几个你自己设计过的关卡案例。"),
  ("2026-04-03T19:20", "小雨", "user", "对了，我妈让我下个月回老家参加表哥的婚礼，日子定在5月20号，在绍兴办。你那天有空一起去吗？"),
  ("2026-04-03T19:22", "阿杰", "user", "那天我要值班，去不了。"),
  ("2026-04-05T10:00", "阿杰", "user", "我新养了一只柯基，叫豆包，才三个月大，每天要遛两次，还在学定点上厕所，真的好累。你家猫最近怎么样？"),
  ("2026-04-05T10:30", "小雨", "user", "我家橘猫年糕最近胖到12斤了，兽医让它减肥。"),
  ("2026-04-05T10:32", "阿杰", "user", "哈哈，让它多运动。"),
  ("2026-04-05T10:40", "小雨", "user", "你知道哪里有好的宠物医院吗？"),
  ("2026-04-05T10:45", "阿杰", "user", "文一路那家安安宠物医院不错，医生很耐心。"),
 ], [
  ("c4q1", "阿杰周末去哪了，住的什么样？", [2]),
  ("c4q2", "小雨面试的是什么岗位？", [5]),
  ("c4q3", "表哥的婚礼在哪天？", [7]),
  ("c4q4", "阿杰的狗叫什么？", [9]),
  ("c4q5", "年糕现在多重？", [10]),
  ("c4q6", "哪家宠物医院好？", [13]),
  ("c4q7", "小雨第一次做戚风蛋糕怎么样了？", [3]),
  ("c4q8", "阿杰为什么去不了婚礼？", [8]),
 ]),
 "c5": ("en", "asks-back", [
  ("2026-05-02T18:00", "Rosa", "user", "How was your weekend?"),
  ("2026-05-02T18:03", "Ben", "user", "Went hiking at Mount Tam with my cousin Leo, did the 12-mile loop, saw a coyote near the summit and ate at the little cafe in Mill Valley afterwards. How about you?"),
  ("2026-05-02T18:05", "Rosa", "user", "Quiet one, I repainted the bathroom sage green."),
  ("2026-05-02T18:06", "Ben", "user", "Nice choice!"),
  ("2026-05-02T18:10", "Rosa", "user", "I have a flight to Lisbon on May 21 for my friend Ines's wedding, it's in Sintra, and I still need a dress. Any shop you'd recommend?"),
  ("2026-05-02T18:12", "Ben", "user", "Try the vintage place on Valencia Street."),
  ("2026-05-04T09:00", "Ben", "user", "My new puppy Waffles is a 10-week beagle, we're crate training and he chews every cable in the flat. Do you still have your cat?"),
  ("2026-05-04T09:20", "Rosa", "user", "Yes, Mochi is 14 now and on kidney diet food."),
  ("2026-05-04T09:22", "Ben", "user", "Give her a scratch from me."),
 ], [
  ("c5q1", "Where did Ben go hiking and with whom?", [2]),
  ("c5q2", "What color did Rosa paint the bathroom?", [3]),
  ("c5q3", "When is Rosa's flight to Lisbon?", [5]),
  ("c5q4", "Where is Ines's wedding?", [5]),
  ("c5q5", "What is the name of Ben's puppy?", [7]),
  ("c5q6", "What does Mochi eat?", [8]),
  ("c5q7", "Where could Rosa find a dress?", [6]),
 ]),
 "c6": ("en", "independent", [
  ("2026-06-01T08:05", "Sam", "user", "Lena is my sister-in-law; she works as a nurse at St. Mary's."),
  ("2026-06-01T11:30", "Sam", "user", "Marco from the climbing gym lent me his belay device."),
  ("2026-06-01T15:10", "Sam", "user", "Lena's kids are Theo, 7, and Ada, 4."),
  ("2026-06-01T20:45", "Sam", "user", "Jun is my old roommate, he moved to Osaka for a robotics job."),
  ("2026-06-02T07:40", "Sam", "user", "Marco is vegetarian and hates cilantro."),
  ("2026-06-02T12:15", "Sam", "user", "Lena wants us to host Thanksgiving this year."),
  ("2026-06-02T18:30", "Sam", "user", "Jun's wedding is on September 12 in Kobe."),
  ("2026-06-03T09:20", "Sam", "user", "Marco's birthday is July 30; he collects vinyl jazz records."),
  ("2026-06-03T14:05", "Sam", "user", "Lena runs the Boston marathon every April."),
  ("2026-06-03T21:10", "Sam", "user", "Jun's new phone number ends in 4471."),
  ("2026-06-04T08:50", "Sam", "user", "Marco's girlfriend is called Bea and she teaches piano."),
  ("2026-06-04T13:35", "Sam", "user", "Lena drives a blue Subaru and is always early."),
  ("2026-06-04T19:00", "Sam", "user", "Jun is allergic to cats, so we meet at his place."),
  ("2026-06-05T10:25", "Sam", "user", "Marco is moving to Lyon in the autumn for a PhD."),
  ("2026-06-05T16:40", "Sam", "user", "Lena's husband Paul is my wife's brother; he fixes boats."),
  ("2026-06-05T22:05", "Sam", "user", "Jun plays bass in a band called Low Tide."),
 ], [
  ("c6q1", "Where does Lena work?", [1]),
  ("c6q2", "What did Marco lend me?", [2]),
  ("c6q3", "How old are Lena's kids?", [3]),
  ("c6q4", "Why did Jun move to Osaka?", [4]),
  ("c6q5", "What food does Marco not eat?", [5]),
  ("c6q6", "Who wants us to host Thanksgiving?", [6]),
  ("c6q7", "When is Jun's wedding?", [7]),
  ("c6q8", "What does Marco collect?", [8]),
  ("c6q9", "Which marathon does Lena run?", [9]),
  ("c6q10", "What are the last digits of Jun's phone number?", [10]),
  ("c6q11", "What does Marco's girlfriend do?", [11]),
  ("c6q12", "What car does Lena drive?", [12]),
  ("c6q13", "Why do we meet at Jun's place?", [13]),
  ("c6q14", "Where is Marco moving?", [14]),
  ("c6q15", "What does Lena's husband do?", [15]),
  ("c6q16", "What band does Jun play in?", [16]),
 ]),
 "c7": ("zh", "independent", [
  ("2026-06-01T08:10", "阿明", "user", "小周是我大学室友，现在在深圳做芯片设计。"),
  ("2026-06-01T11:40", "阿明", "user", "表姐赵敏在医院当护士，经常上夜班。"),
  ("2026-06-01T15:20", "阿明", "user", "老郑是我健身房的教练，每周二四带我练。"),
  ("2026-06-01T20:50", "阿明", "user", "小周不吃香菜，也不能吃辣。"),
  ("2026-06-02T07:45", "阿明", "user", "赵敏的女儿叫朵朵，今年上小学二年级。"),
  ("2026-06-02T12:20", "阿明", "user", "老郑说我深蹲姿势不对，膝盖不能内扣。"),
  ("2026-06-02T18:35", "阿明", "user", "小周下个月结婚，婚礼在厦门鼓浪屿。"),
  ("2026-06-03T09:25", "阿明", "user", "赵敏想买一辆白色的比亚迪。"),
  ("2026-06-03T14:10", "阿明", "user", "老郑以前是省队的举重运动员。"),
  ("2026-06-03T21:15", "阿明", "user", "小周的微信号换成了zhou_chip88。"),
  ("2026-06-04T08:55", "阿明", "user", "赵敏的老公在银行上班，人很老实。"),
  ("2026-06-04T13:40", "阿明", "user", "老郑下个月要去成都参加比赛，课暂停两周。"),
  ("2026-06-04T19:05", "阿明", "user", "小周养了一只叫可乐的边牧。"),
  ("2026-06-05T10:30", "阿明", "user", "赵敏每年春节都回哈尔滨老家。"),
  ("2026-06-05T16:45", "阿明", "user", "老郑推荐我每天吃够120克蛋白质。"),
  ("2026-06-05T22:10", "阿明", "user", "小周打算明年读个在职MBA。"),
 ], [
  ("c7q1", "小周现在做什么工作？", [1]),
  ("c7q2", "赵敏是做什么的？", [2]),
  ("c7q3", "老郑什么时候带我练？", [3]),
  ("c7q4", "小周有什么忌口？", [4]),
  ("c7q5", "赵敏的女儿叫什么？", [5]),
  ("c7q6", "老郑说我深蹲有什么问题？", [6]),
  ("c7q7", "小周的婚礼在哪里办？", [7]),
  ("c7q8", "赵敏想买什么车？", [8]),
  ("c7q9", "老郑以前是干什么的？", [9]),
  ("c7q10", "小周的新微信号是什么？", [10]),
  ("c7q11", "赵敏的老公做什么工作？", [11]),
  ("c7q12", "老郑为什么停课？", [12]),
  ("c7q13", "小周的狗叫什么？", [13]),
  ("c7q14", "赵敏春节去哪？", [14]),
  ("c7q15", "老郑建议我吃多少蛋白质？", [15]),
  ("c7q16", "小周明年有什么打算？", [16]),
 ]),
}


def split(qid: str) -> str:
    return "holdout" if hashlib.sha256(qid.encode()).digest()[0] % 2 else "tune"


def session_ids(shape: str, ats: list[str]) -> list[str]:
    """A thread of independent notes is one long session (as a messaging thread with a
    fixed session id); a conversation starts a new session after 6 hours of silence."""
    if shape == "independent":
        return ["s1"] * len(ats)
    out, n, last = [], 0, None
    for at in ats:
        t = datetime.fromisoformat(at)
        if last is None or (t - last).total_seconds() > 6 * 3600:
            n += 1
        out.append(f"s{n}")
        last = t
    return out


def main() -> None:
    out = Path(__file__).with_name("shapes.jsonl")
    with out.open("w", encoding="utf-8") as f:
        for conv, (lang, shape, turns, queries) in CONVS.items():
            sessions = session_ids(shape, [t[0] for t in turns])
            for n, (at, speaker, role, text) in enumerate(turns, start=1):
                f.write(json.dumps({"type": "turn", "conv": conv, "lang": lang, "shape": shape,
                                    "session": sessions[n - 1],
                                    "id": f"{conv}:{n}", "at": at + ":00Z", "speaker": speaker,
                                    "role": role, "text": text}, ensure_ascii=False) + "\n")
            for qid, text, gold in queries:
                f.write(json.dumps({"type": "query", "conv": conv, "lang": lang, "shape": shape,
                                    "id": qid, "text": text, "split": split(qid),
                                    "gold": [f"{conv}:{g}" for g in gold]},
                                   ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
