import type { ReactNode, RefObject } from 'react';
import { Button, Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useTranslation } from 'react-i18next';

/**
 * A wide dialog that fills a phone's screen, with its title and a visible close button kept at
 * the top while its content scrolls (`scroller` is that scrolling element).
 */
export function FullScreenDialog({
  title,
  isOpen,
  onClose,
  className,
  scroller,
  children,
}: {
  title: ReactNode;
  isOpen: boolean;
  onClose: () => void;
  className: string;
  scroller?: RefObject<HTMLDivElement | null>;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <ModalOverlay className="modal-overlay modal-overlay-full" isOpen={isOpen} onOpenChange={(open) => (open ? undefined : onClose())} isDismissable>
      <Modal className="modal modal-wide modal-full">
        <div className="modal-scroll" ref={scroller}>
          <Dialog className={`dialog ${className}`}>
            <div className="dialog-header">
              <Heading slot="title">{title}</Heading>
              <Button className="button button-small" onPress={onClose}>
                {t('common.close')}
              </Button>
            </div>
            {children}
          </Dialog>
        </div>
      </Modal>
    </ModalOverlay>
  );
}
