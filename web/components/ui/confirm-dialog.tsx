import type { ReactNode } from 'react';
import { Button, Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';

/** A yes/no question before something that cannot be undone; Escape or Cancel keeps everything. */
export function ConfirmDialog({
  title,
  body,
  confirmLabel,
  cancelLabel,
  isOpen,
  isPending,
  onConfirm,
  onCancel,
}: {
  title: ReactNode;
  body: ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  isOpen: boolean;
  isPending?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <ModalOverlay className="modal-overlay" isOpen={isOpen} onOpenChange={(open) => (open ? undefined : onCancel())} isDismissable>
      <Modal className="modal">
        <Dialog className="dialog confirm-dialog" role="alertdialog">
          <Heading slot="title">{title}</Heading>
          <p>{body}</p>
          <div className="button-row">
            <Button className="button" onPress={onCancel} autoFocus>
              {cancelLabel}
            </Button>
            <Button className="button button-danger" onPress={onConfirm} isDisabled={isPending}>
              {confirmLabel}
            </Button>
          </div>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
