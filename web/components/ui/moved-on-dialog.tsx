import { Button, Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { MovedOn } from '../../lib/use-study-moved-on';

/**
 * Tells a participant that this tab is out of date (they went further in another tab or on
 * another device) and takes them to where they are: the page is loaded again from the server's
 * state there, so nothing old stays on screen. It cannot be dismissed: answering here would be lost.
 */
export function MovedOnDialog({ movedOn }: { movedOn: MovedOn | null }) {
  const { t } = useTranslation();
  const go = () => {
    if (!movedOn) return;
    window.location.assign(movedOn.destination.path);
  };
  return (
    <ModalOverlay className="modal-overlay" isOpen={movedOn !== null} isDismissable={false} isKeyboardDismissDisabled>
      <Modal className="modal">
        <Dialog className="dialog moved-on-dialog" role="alertdialog" data-testid="moved-on">
          <Heading slot="title">{t('movedOn.title')}</Heading>
          <p>{t('movedOn.body')}</p>
          {movedOn ? <p className="muted">{t('movedOn.saved', { count: movedOn.serverCount })}</p> : null}
          <div className="button-row">
            <Button className="button button-primary" onPress={go} autoFocus>
              {t('movedOn.continue')}
            </Button>
          </div>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
