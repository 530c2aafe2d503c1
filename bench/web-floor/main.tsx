/**
 * bench:web's floor: the libraries the stack fixes, used as the SPA uses them (React and ReactDOM,
 * react-router's declarative routes, i18next with react-i18next) and nothing of the app. What `/`
 * downloads beyond this build is the app's own share.
 */
import i18next from 'i18next';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nextProvider, initReactI18next, useTranslation } from 'react-i18next';
import { BrowserRouter, Link, Navigate, Outlet, Route, Routes, useLocation, useNavigate, useSearchParams } from 'react-router';

const i18n = i18next.createInstance();
void i18n.use(initReactI18next).init({ resources: { ja: { translation: { title: '床' } } }, lng: 'ja', initAsync: false });

function Page() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [params] = useSearchParams();
  if (params.get('away')) return <Navigate to="/" />;
  return (
    <main>
      <h1 onClick={() => void navigate('/next')}>{t('title')}</h1>
      <Link to="/">{pathname}</Link>
      <Outlet />
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <I18nextProvider i18n={i18n}>
      <BrowserRouter>
        <Routes>
          <Route path="*" element={<Page />} />
        </Routes>
      </BrowserRouter>
    </I18nextProvider>
  </StrictMode>,
);
