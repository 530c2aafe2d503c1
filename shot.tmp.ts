import { chromium } from 'playwright-core';
const base = process.env.BASE ?? 'http://127.0.0.1:8787';
const FLAGS = ['--headless','--no-sandbox','--disable-gpu','--disable-background-networking','--disable-component-update','--disable-sync','--no-first-run','--disable-quic'];
const items = ['overview','voluntariness','privacy','publication','benefits_risks','data_handling','others'];
async function participant(dataset: string) {
  const id = Array.from({length:8},()=> 'ABCDEFGHJKMNPQRSTUVWXYZ23456789'[Math.floor(Math.random()*31)]).join('');
  const post = (p: string, b: unknown) => fetch(base+p,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify(b)}).then(async r=>({s:r.status,j:await r.json()}));
  await post('/api/experiments/dataset-assignment/explicit',{session_id:id,dataset_type:dataset,created_by:'system'});
  const s = await post('/api/experiments/sessions',{participant_name:id,dataset_type:dataset,language:'ja',new_participant:true});
  const c = await post('/api/consent/submit',{session_id:id,consent_items:Object.fromEntries(items.map(i=>[i,true]))});
  if (c.s!==200) console.log('consent', c);
  return { id, userId: s.j.user_id };
}
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
const routes = (process.env.ROUTES ?? 'pre').split(',');
for (const dataset of (process.env.DS ?? 'adult_income,speed_dating,compas').split(',')) for (const lang of (process.env.LANGS ?? 'ja,en').split(',')) for (const w of (process.env.WIDTHS ?? '390').split(',').map(Number)) {
  const ctx = await b.newContext({ viewport: { width: w, height: w < 700 ? 844 : 800 }, locale: 'ja-JP' });
  const page = await ctx.newPage();
  page.on('console', (m) => { if (m.type()==='warning'||m.type()==='error') console.log('console', m.type(), m.text().slice(0,200)); });
  const p = await participant(dataset);
  await page.goto(base + '/status');
  if (process.env.FRESH) await page.evaluate(() => { (window as any).__fresh = true; });
  if (process.env.NOTUT) await page.evaluate(() => { (window as any).__notut = true; });
  await page.evaluate(({p, lang, dataset}) => { localStorage.setItem('xai-decision-lab-language', lang); if ((window as any).__fresh) return; for (const k of ['experiment_session_id','experiment_participant_id','experiment_participant_name','participant_id']) localStorage.setItem(k,p.id); localStorage.setItem('experiment_dataset_type',dataset); localStorage.setItem('experiment_session', JSON.stringify({session_id:p.id,participant_name:p.id,experiment_type:dataset,user_id:p.userId,timestamp:Date.now()})); if (!(window as any).__notut) sessionStorage.setItem('pre_experiment_tutorial_done','true'); }, { p, lang, dataset });
  for (const r of routes) {
    const url = r === 'pre' ? '/experiment/pre' : r;
    await page.goto(base + url);
    await page.waitForTimeout(1500);
    if (r === 'pre' && process.env.CASE) { await page.getByRole('button', { name: lang==='ja' ? '事前実験を開始する' : 'Start the pre-experiment' }).click().catch(e=>console.log('nostart')); await page.waitForTimeout(800); }
    const sw = await page.evaluate(() => document.documentElement.scrollWidth);
    const sh = await page.evaluate(() => document.documentElement.scrollHeight);
    const name = `${r.replace(/\//g,'_')}-${dataset}-${lang}-${w}`;
    console.log(name, 'scrollWidth', sw, 'scrollHeight', sh);
    await page.screenshot({ path: `/tmp/shots/${name}.png`, fullPage: !!process.env.FULL });
  }
  await ctx.close();
}
await b.close();
