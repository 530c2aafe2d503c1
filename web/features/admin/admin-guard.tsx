// The administrator's pages parse with zod: without its eval probe, the CSP stays quiet.
import '../../../worker/schemas/zod-setup';
import './admin.css';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Button, Dialog, Heading, Input, Label, Modal, ModalOverlay, TextField } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../lib/api';
import { useAdminLogin, useAdminSession } from './use-admin-auth';

/**
 * Part 1 §5 password dialog: Enter submits, it closes on success, and its fields start empty every
 * time it opens (it is mounted afresh on each opening).
 */
/** What a refused sign-in says, in the spec's words (part 1 §5): a wrong password, too many tries, or any other failure. */
function loginErrorKey(err: Error) {
  if (err instanceof ApiError && err.status === 401) return 'admin.auth.wrong';
  if (err instanceof ApiError && err.status === 429) return 'admin.auth.tooMany';
  return 'admin.auth.authError';
}

function PasswordDialog() {
  const { t } = useTranslation();
  const login = useAdminLogin();
  const [password, setPassword] = useState('');
  const [empty, setEmpty] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setEmpty(!password);
    if (password) login.mutate(password);
  };
  return (
    <ModalOverlay className="modal-overlay" isOpen isDismissable={false}>
      <Modal className="modal">
        <Dialog className="dialog password-dialog">
          <Heading slot="title">{t('admin.auth.title')}</Heading>
          <p>{t('admin.auth.lead')}</p>
          <form onSubmit={submit}>
            {/* Lets password managers file the password under the one administrator account. */}
            <input type="text" name="username" autoComplete="username" value="admin" readOnly hidden />
            <TextField className="field" value={password} onChange={setPassword} type="password" autoFocus isDisabled={login.isPending}>
              <Label>{t('admin.auth.password')}</Label>
              <Input autoComplete="current-password" />
            </TextField>
            {empty || login.isError ? (
              <p role="alert" className="notice notice-error">
                {empty ? t('admin.auth.enterPassword') : t(loginErrorKey(login.error!))}
              </p>
            ) : null}
            <Button type="submit" className="button button-primary" isDisabled={login.isPending}>
              {login.isPending ? t('admin.auth.authenticating') : t('admin.auth.submit')}
            </Button>
          </form>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}

/**
 * Wraps /home, /admin and /model-verification: asks the server whether this browser holds a live
 * admin session and shows the password dialog until it does. The API refuses every admin call
 * without that session whatever this wrapper shows.
 */
export function AdminGuard({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const session = useAdminSession();
  if (session.isPending) {
    return (
      <p className="page" aria-busy="true">
        {t('admin.auth.checking')}
      </p>
    );
  }
  const authenticated = session.data?.authenticated === true;
  return authenticated ? <>{children}</> : <PasswordDialog />;
}
