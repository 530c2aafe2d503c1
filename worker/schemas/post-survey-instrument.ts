/**
 * The post-survey instrument (part 2 §2.4 and §3): its five sections in order, every question
 * with its type, options, range, limits, keys and factors, and its wording in Japanese and
 * English. This one file drives the form, the Worker's validation, the scoring, the export
 * columns and the codebook; `post-survey.ts` checks it against its schema when loaded.
 *
 * The personality items are worded by this project to measure the named constructs, following
 * the structure of the short scales the study names (10 items on five factors, reverse-keyed 2,
 * 4, 6, 8, 10; 18 locus-of-control items, 9 internal and 9 external; 18 need-for-cognition
 * items, reverse-keyed where the name ends in `_r`). A study that holds a licence for validated
 * wording replaces the `label` texts here; names, keys and factors stay as they are, so stored
 * answers, scores and exports keep their meaning.
 */
import type { PostSurveyDefinition } from './post-survey-definition';

const tx = (ja: string, en: string) => ({ ja, en });

/** The four decision contexts the benevolent-deception questions ask about. */
const CONTEXTS = [
  ['high_stakes', tx('重大な結果を伴う判断（例：医療、融資、刑事司法）', 'High-stakes decisions (e.g. medicine, loans, criminal justice)')],
  ['low_stakes', tx('影響の小さい判断（例：商品のおすすめ、娯楽）', 'Low-stakes decisions (e.g. product or entertainment recommendations)')],
  ['subjective', tx('主観的な判断（例：好み、デートの相性）', 'Subjective judgements (e.g. taste, dating compatibility)')],
  ['objective', tx('客観的な判断（例：数値の予測、事実の確認）', 'Objective judgements (e.g. numeric forecasts, fact checking)')],
] as const;

const agree5 = 'agree5' as const;
const agree7 = 'agree7' as const;

/** A 1–5 rating with a free-text reason for and against (max 600 each). */
const ratedWithReasons = (name: string, label: { ja: string; en: string }) => [
  { kind: 'scale' as const, name, label, min: 1, max: 5, anchors: agree5 },
  {
    kind: 'text' as const,
    name: `${name}_positive_reason`,
    label: tx('そう考える理由（肯定的な面）', 'Why (the positive side)'),
    maxLength: 600,
  },
  {
    kind: 'text' as const,
    name: `${name}_negative_reason`,
    label: tx('そう考える理由（否定的な面）', 'Why (the negative side)'),
    maxLength: 600,
  },
];

const WHAT_OPTIONS = [
  ['adjusted', tx('説明が調整されていること', 'That the explanation was adjusted')],
  ['how_much', tx('どの程度調整されたか', 'How much it was adjusted')],
  ['why', tx('調整した理由', 'Why it was adjusted')],
  ['original', tx('調整前のAI本来の説明', "The AI's original, unadjusted explanation")],
  ['accuracy', tx('AIの正解率', "The AI's accuracy")],
] as const;
const HOW_OPTIONS = [
  ['before', tx('利用前にまとめて説明する', 'All at once before use')],
  ['each_time', tx('説明を表示するたびに明示する', 'Each time an explanation is shown')],
  ['on_request', tx('求めたときに見られるようにする', 'Available on request')],
  ['after', tx('利用後に説明する', 'Afterwards')],
  ['not_needed', tx('知らせる必要はない', 'No need to tell')],
] as const;

export const postSurveyInstrument: PostSurveyDefinition = {
  sections: [
    {
      id: 'demographics',
      title: tx('基本情報', 'About you'),
      questions: [
        { kind: 'number', name: 'age', label: tx('年齢', 'Age'), min: 18, max: 120, unit: tx('歳', 'years') },
        {
          kind: 'radio',
          name: 'gender_identity',
          label: tx('性自認', 'Gender identity'),
          options: [
            { value: 'male', label: tx('男性', 'Male') },
            { value: 'female', label: tx('女性', 'Female') },
            { value: 'other', label: tx('その他', 'Other') },
            { value: 'prefer_not_to_say', label: tx('回答しない', 'Prefer not to say') },
          ],
        },
        {
          kind: 'radio',
          name: 'ethnicity',
          label: tx('民族的背景', 'Ethnic background'),
          options: [
            { value: 'asian', label: tx('アジア系', 'Asian') },
            { value: 'european', label: tx('ヨーロッパ系', 'European') },
            { value: 'african', label: tx('アフリカ系', 'African') },
            { value: 'american', label: tx('アメリカ大陸系', 'American') },
            { value: 'other', label: tx('その他', 'Other') },
            { value: 'prefer_not_to_say', label: tx('回答しない', 'Prefer not to say') },
          ],
        },
        {
          kind: 'radio',
          name: 'education_level',
          label: tx('最終学歴', 'Highest education'),
          options: [
            { value: 'high_school_or_less', label: tx('高校卒業以下', 'High school or less') },
            { value: 'bachelor', label: tx('大学卒業（学士）', "Bachelor's degree") },
            { value: 'graduate', label: tx('大学院修了', 'Graduate degree') },
            { value: 'prefer_not_to_say', label: tx('回答しない', 'Prefer not to say') },
          ],
        },
        {
          kind: 'radio',
          name: 'occupation',
          label: tx('職業', 'Occupation'),
          options: [
            { value: 'student', label: tx('学生', 'Student') },
            { value: 'employed', label: tx('会社員・公務員など', 'Employed') },
            { value: 'self_employed', label: tx('自営業', 'Self-employed') },
            { value: 'unemployed', label: tx('無職', 'Not employed') },
            { value: 'other', label: tx('その他', 'Other') },
            { value: 'prefer_not_to_say', label: tx('回答しない', 'Prefer not to say') },
          ],
        },
        { kind: 'scale', name: 'ai_trust_before_disclosure', shownTo: 'ai', label: tx('実験で見たAIの予測をどの程度信頼しましたか', 'How much did you trust the AI predictions you saw in the experiment?'), min: 1, max: 5, anchors: 'extent5' },
        { kind: 'scale', name: 'ai_understanding_before_disclosure', shownTo: 'ai', label: tx('AIがどのように予測しているか、どの程度理解できたと思いますか', 'How well do you think you understood how the AI made its predictions?'), min: 1, max: 5, anchors: 'extent5' },
        { kind: 'scale', name: 'ai_explanation_helpfulness_before', shownTo: 'explanation', label: tx('AIの説明（特徴の影響のグラフ）は判断にどの程度役立ちましたか', "How helpful were the AI's explanations (the feature charts) for your judgements?"), min: 1, max: 5, anchors: 'extent5' },
      ],
    },
    {
      id: 'benevolent',
      title: tx('説明の調整について', 'About adjusted explanations'),
      questions: [
        {
          kind: 'info',
          name: 'benevolent_disclosure',
          label: tx('この実験で表示したAIの説明について', 'About the AI explanations in this experiment'),
          body: tx(
            'この実験では、AIの説明（特徴の影響のグラフ）の一部を、あなたが事前実験で示した判断の傾向に近づくように調整して表示していました。AIの予測そのものは変えていません。このように、利用者の受け止めやすさのために善意から説明を調整することを、ここでは「善意の調整」と呼びます。下の図は、調整前（AI本来の説明）と調整後（あなたの傾向を取り入れた説明）の例です。',
            "In this experiment, some of the AI's explanations (the feature charts) were adjusted toward the judgement pattern you showed in the pre-experiment. The AI's predictions themselves were never changed. Here we call adjusting an explanation with good intentions, to make it easier for the user to accept, a \"benevolent adjustment\". The figure below shows an example before adjustment (the AI's own explanation) and after (with your pattern mixed in).",
          ),
          bodyUnadjusted: tx(
            'この実験では、一部の参加者に、事前実験で示した判断の傾向に近づくように調整したAIの説明（特徴の影響のグラフ）を表示していました。AIの予測そのものは変えていません。あなたに表示した内容は、このような調整をしていません。このように、利用者の受け止めやすさのために善意から説明を調整することを、ここでは「善意の調整」と呼びます。下の図は、調整前（AI本来の説明）と調整後（参加者の傾向を取り入れた説明）の例です。',
            "In this experiment, some participants were shown AI explanations (feature charts) adjusted toward the judgement pattern they had shown in the pre-experiment. The AI's predictions themselves were never changed. What you were shown was not adjusted in this way. Here we call adjusting an explanation with good intentions, to make it easier for the user to accept, a \"benevolent adjustment\". The figure below shows an example before adjustment (the AI's own explanation) and after (with a participant's pattern mixed in).",
          ),
          figure: 'benevolent_example',
        },
        ...ratedWithReasons('long_term_trust_rating', tx('長く使うと、このような調整はAIへの信頼を高めると思う', 'Over long use, such adjustment would increase trust in the AI')),
        ...ratedWithReasons('long_term_understanding_rating', tx('長く使うと、このような調整はAIへの理解を深めると思う', 'Over long use, such adjustment would deepen understanding of the AI')),
        ...ratedWithReasons('perceived_effectiveness_general', tx('このような調整は、人とAIの協働をよりよくする効果があると思う', 'Such adjustment makes people and AI work together better')),
        ...ratedWithReasons('initial_reaction_anxiety', tx('説明が調整されていたと知って、不安を感じた', 'Learning that explanations were adjusted made me uneasy')),
        { kind: 'text', name: 'initial_reaction_feelings', label: tx('説明が調整されていたと知ったときの気持ちを自由にお書きください', 'Please describe how you felt on learning that the explanations were adjusted'), maxLength: 800 },
        ...CONTEXTS.map(([id, context]) => ({
          kind: 'scale' as const,
          name: `ethical_acceptability_${id}`,
          label: tx(`次の場面で、説明を善意で調整することは倫理的に許容できる：${context.ja}`, `In this context, benevolently adjusting explanations is ethically acceptable: ${context.en}`),
          min: 1,
          max: 5,
          anchors: agree5,
        })),
        { kind: 'text', name: 'ethical_acceptability_acceptable_conditions', label: tx('どのような条件なら、説明の調整を許容できますか', 'Under what conditions would adjusting explanations be acceptable?'), maxLength: 800 },
        { kind: 'text', name: 'ethical_acceptability_unacceptable_conditions', label: tx('どのような条件なら、説明の調整は許容できませんか', 'Under what conditions would adjusting explanations be unacceptable?'), maxLength: 800 },
        ...CONTEXTS.map(([id, context]) => ({
          kind: 'scale' as const,
          name: `disclosure_necessity_${id}`,
          label: tx(`次の場面で、説明を調整していることを利用者に知らせる必要がある：${context.ja}`, `In this context, users must be told that explanations are adjusted: ${context.en}`),
          min: 1,
          max: 5,
          anchors: agree5,
          previousAnswers: CONTEXTS.map(([c]) => `ethical_acceptability_${c}`),
        })),
        ...CONTEXTS.map(([id, context]) => ({
          kind: 'multiselect' as const,
          name: `disclosure_content_what_${id}`,
          label: tx(`${context.ja}：何を知らせるべきですか（複数選択可）`, `${context.en}: what should users be told? (choose any)`),
          options: WHAT_OPTIONS.map(([value, label]) => ({ value, label })),
          otherMaxLength: 500,
        })),
        ...CONTEXTS.map(([id, context]) => ({
          kind: 'multiselect' as const,
          name: `disclosure_content_how_${id}`,
          label: tx(`${context.ja}：どのように知らせるべきですか（複数選択可）`, `${context.en}: how should users be told? (choose any)`),
          options: HOW_OPTIONS.map(([value, label]) => ({ value, label })),
          otherMaxLength: 500,
        })),
      ],
    },
    {
      id: 'bigfive',
      title: tx('あなたの性格について', 'Your personality'),
      intro: tx('次の言葉があなた自身にどの程度あてはまるか、最も近いものを選んでください。', 'How well does each description fit you? Choose the closest answer.'),
      questions: [
        { kind: 'scale', name: 'bfi_1', label: tx('人付き合いが好きで、活発なほうだ', 'Outgoing and lively'), min: 1, max: 7, anchors: agree7, factor: 'extraversion' },
        { kind: 'scale', name: 'bfi_2', label: tx('人の欠点が目につき、口論になりやすい', 'Quick to find fault and argue'), min: 1, max: 7, anchors: agree7, factor: 'agreeableness', reverse: true },
        { kind: 'scale', name: 'bfi_3', label: tx('頼りになり、自分を律することができる', 'Dependable and self-disciplined'), min: 1, max: 7, anchors: agree7, factor: 'conscientiousness' },
        { kind: 'scale', name: 'bfi_4', label: tx('心配しやすく、動揺しやすい', 'Easily worried and upset'), min: 1, max: 7, anchors: agree7, factor: 'emotional_stability', reverse: true },
        { kind: 'scale', name: 'bfi_5', label: tx('新しいことが好きで、発想が豊かだ', 'Open to new things, full of ideas'), min: 1, max: 7, anchors: agree7, factor: 'openness' },
        { kind: 'scale', name: 'bfi_6', label: tx('控えめで、物静かなほうだ', 'Reserved and quiet'), min: 1, max: 7, anchors: agree7, factor: 'extraversion', reverse: true },
        { kind: 'scale', name: 'bfi_7', label: tx('人に思いやりがあり、温かい', 'Considerate and warm'), min: 1, max: 7, anchors: agree7, factor: 'agreeableness' },
        { kind: 'scale', name: 'bfi_8', label: tx('だらしなく、うっかりしやすい', 'Disorganised and careless'), min: 1, max: 7, anchors: agree7, factor: 'conscientiousness', reverse: true },
        { kind: 'scale', name: 'bfi_9', label: tx('落ち着いていて、気分が安定している', 'Calm and emotionally steady'), min: 1, max: 7, anchors: agree7, factor: 'emotional_stability' },
        { kind: 'scale', name: 'bfi_10', label: tx('決まったやり方を好み、想像力はあまりない', 'Prefers routine, not very imaginative'), min: 1, max: 7, anchors: agree7, factor: 'openness', reverse: true },
      ],
    },
    {
      id: 'locus',
      title: tx('物事の捉え方について', 'How you see events'),
      intro: tx('次の考えにどの程度同意するか、最も近いものを選んでください。', 'How much do you agree with each statement? Choose the closest answer.'),
      questions: [
        ['internal_control', tx('自分の人生で起こることの多くは、自分の行動で決まる', 'What happens in my life is mostly decided by what I do')],
        ['external_control', tx('うまくいくかどうかは、運によるところが大きい', 'Whether things go well is largely a matter of luck')],
        ['internal_control', tx('努力すれば、たいていの目標は達成できる', 'With effort, I can reach most of my goals')],
        ['external_control', tx('自分の将来は、周りの人や状況に左右される', 'My future depends on other people and circumstances')],
        ['internal_control', tx('失敗したときは、自分のやり方に原因があることが多い', 'When I fail, the cause is usually in how I did things')],
        ['external_control', tx('人生の大事な出来事は、偶然で決まることが多い', 'Important events in life are often decided by chance')],
        ['internal_control', tx('計画を立てれば、そのとおりに進められることが多い', 'When I make plans, I can usually carry them through')],
        ['external_control', tx('力のある人に気に入られないと、成功は難しい', 'Without the favour of powerful people, success is hard')],
        ['internal_control', tx('成績や評価は、自分の努力をおおむね反映している', 'Grades and evaluations mostly reflect my own effort')],
        ['external_control', tx('何をしても結果はあまり変わらないと感じることが多い', 'I often feel that whatever I do, the outcome is much the same')],
        ['internal_control', tx('困ったことが起きても、自分で解決策を見つけられる', 'When trouble comes, I can find my own way out')],
        ['external_control', tx('良い結果が出るのは、たまたま運が良かったからだ', 'When things turn out well, it is because I was lucky')],
        ['internal_control', tx('自分の健康は、自分の生活習慣で大きく変えられる', 'My health depends largely on my own habits')],
        ['external_control', tx('世の中の出来事は、自分にはどうにもできないことが多い', 'Most things in the world are beyond my control')],
        ['internal_control', tx('人間関係がうまくいくかどうかは、自分の接し方しだいだ', 'Whether relationships go well depends on how I treat people')],
        ['external_control', tx('チャンスに恵まれるかどうかは、生まれた環境で決まる', 'Whether one gets chances is decided by where one is born')],
        ['internal_control', tx('自分の決断が、自分の将来をつくっていく', 'My decisions shape my future')],
        ['external_control', tx('物事がどうなるかは、運命で決まっていると思う', 'How things turn out is decided by fate')],
      ].map(([factor, label], i) => ({
        kind: 'scale' as const,
        name: `loc_${i + 1}`,
        label: label as { ja: string; en: string },
        min: 1,
        max: 7,
        anchors: agree7,
        factor: factor as 'internal_control' | 'external_control',
      })),
    },
    {
      id: 'cognition',
      title: tx('考えることについて', 'About thinking'),
      intro: tx('次の文が、あなたにどの程度あてはまるか選んでください。', 'How well does each statement describe you?'),
      questions: [
        ...[
          [tx('単純な問題より、複雑な問題のほうが好きだ', 'I prefer complex problems to simple ones'), false],
          [tx('深く考える必要がある状況を任されたい', 'I like to be in charge of situations that need a lot of thinking')],
          [tx('考えることは楽しいとは思わない', 'Thinking is not my idea of fun'), true],
          [tx('頭を使う必要のないことをするほうがよい', 'I would rather do something that needs little thought'), true],
          [tx('深く考えなければならない状況はできるだけ避ける', 'I try to avoid situations where I must think in depth'), true],
          [tx('長い時間をかけて、じっくり考えることに満足感を覚える', 'I find satisfaction in deliberating hard and for long')],
          [tx('必要以上に考えることはしない', 'I think only as hard as I have to'), true],
          [tx('長期的な計画より、目の前の小さな課題を考えるほうがよい', 'I prefer to think about small daily tasks rather than long-term plans'), true],
          [tx('一度覚えれば考えなくてよい作業が好きだ', 'I like tasks that need little thought once learned'), true],
          [tx('考えることで上に立つという考え方に魅力を感じる', 'The idea of relying on thought to get ahead appeals to me')],
          [tx('問題の新しい解き方を考え出す作業が本当に楽しい', 'I really enjoy tasks that involve coming up with new solutions')],
          [tx('新しい考え方を学ぶことに、あまり心が躍らない', 'Learning new ways to think does not excite me much'), true],
          [tx('解かなければならないパズルのような課題が人生にあるとよい', 'I prefer my life to be filled with puzzles I must solve')],
          [tx('抽象的に考えることに魅力を感じる', 'Thinking abstractly appeals to me')],
          [tx('重要でも少し考えれば済む課題より、知的で難しい課題のほうが好きだ', 'I prefer an intellectual, difficult task to one that is important but needs little thought')],
          [tx('頭を使う課題を終えると、満足より安堵を感じる', 'After a task that took a lot of mental effort, I feel relief rather than satisfaction'), true],
          [tx('仕事はやり遂げれば十分で、なぜそうなるかには関心がない', 'It is enough for me that something gets done; I do not care how or why it works'), true],
          [tx('個人的に関係のない問題でも、じっくり考えることがよくある', 'I often end up deliberating about issues even when they do not affect me')],
        ].map(([label, reverse], i) => ({
          kind: 'scale' as const,
          name: `ncs_${i + 1}${reverse ? '_r' : ''}`,
          label: label as { ja: string; en: string },
          min: 1,
          max: 5,
          anchors: 'fit5' as const,
          factor: 'need_for_cognition' as const,
          reverse: Boolean(reverse),
        })),
        { kind: 'scale', name: 'experiment_rating', label: tx('この実験全体を7段階で評価してください', 'Please rate the experiment as a whole, out of 7'), min: 1, max: 7, anchors: 'rating7' },
        { kind: 'text', name: 'overall_feedback', label: tx('実験全体へのご意見・ご感想（任意）', 'Any comments on the experiment (optional)'), maxLength: 800, optional: true },
      ],
    },
  ],
};
